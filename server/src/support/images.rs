//! Complaint images: accepted by their content, never their name or declared type (the magic bytes say JPEG, PNG or
//! WebP, and the whole image decodes within size limits), then re-encoded, which drops every piece of metadata
//! (EXIF with GPS position and camera serial, XMP, comments) after turning the picture upright by its EXIF
//! orientation.

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::{DynamicImage, ImageDecoder, ImageFormat, ImageReader, Limits};

/// The largest upload accepted (5 MB), before re-encoding.
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;
/// The most pixels an image may have (a 24-megapixel photo, 6000 × 4000): a complaint's photo or screenshot needs
/// no more, and a few kilobytes of WebP or PNG can declare 100 megapixels.
pub const MAX_PIXELS: u64 = 24_000_000;
/// The widest or tallest image accepted.
pub const MAX_SIDE: u32 = 8192;
/// Memory the decoder may take for the picture (checked against what the header says it will need before anything
/// is decoded): the largest image accepted, in 8-bit RGBA. A 16-bit image of that size is refused.
const MAX_DECODE_BYTES: u64 = MAX_PIXELS * 4;
/// The JPEG quality of a re-encoded photo.
const JPEG_QUALITY: u8 = 85;
/// The JPEG qualities a picture whose re-encoding in its own format came out larger than [`MAX_IMAGE_BYTES`] is
/// tried at, in turn (a lossy WebP re-encoded losslessly can grow several times over).
const SMALLER_JPEG_QUALITIES: [u8; 2] = [JPEG_QUALITY, 70];

/// An image ready to store: re-encoded, without metadata.
#[derive(Debug)]
pub struct CleanImage {
    pub bytes: Vec<u8>,
    pub content_type: &'static str,
    pub extension: &'static str,
    pub width: u32,
    pub height: u32,
}

/// Why an upload is not an image we take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageProblem {
    Empty,
    TooLarge,
    /// Not JPEG, PNG or WebP by its content, or it does not decode.
    NotAnImage,
    /// More than [`MAX_PIXELS`], wider or taller than [`MAX_SIDE`], or needing more than the decoder's memory.
    TooManyPixels,
}

/// What an upload's header says, read without decoding the picture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub format: ImageFormat,
    pub width: u32,
    pub height: u32,
}

/// The memory decoding and re-encoding an image of this header takes at most, in bytes: the picture at 4 bytes a
/// pixel (larger layouts are refused by the decoder's limit) and one copy of it (a turned or converted picture, the
/// encoder's buffers).
pub fn working_memory(header: &Header) -> u64 {
    u64::from(header.width) * u64::from(header.height) * 4 * 2
}

/// Checks an upload without decoding it: its size, its format by the magic bytes, and the dimensions its header
/// declares. Cheap (the header only), so it runs on the request's thread before the upload queues for a decode.
pub fn inspect(bytes: &[u8]) -> Result<Header, ImageProblem> {
    if bytes.is_empty() {
        return Err(ImageProblem::Empty);
    }
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(ImageProblem::TooLarge);
    }
    let format = image::guess_format(bytes).map_err(|_| ImageProblem::NotAnImage)?;
    if !matches!(
        format,
        ImageFormat::Jpeg | ImageFormat::Png | ImageFormat::WebP
    ) {
        return Err(ImageProblem::NotAnImage);
    }
    let (width, height) = reader(bytes, format)
        .into_dimensions()
        .map_err(|err| problem_of(&err))?;
    if u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(ImageProblem::TooManyPixels);
    }
    Ok(Header {
        format,
        width,
        height,
    })
}

/// A reader of `bytes` in `format` that refuses a side over [`MAX_SIDE`] and more than [`MAX_DECODE_BYTES`].
fn reader(bytes: &[u8], format: ImageFormat) -> ImageReader<Cursor<&[u8]>> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    reader.limits(limits());
    reader
}

fn limits() -> Limits {
    let mut limits = Limits::default();
    limits.max_image_width = Some(MAX_SIDE);
    limits.max_image_height = Some(MAX_SIDE);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    limits
}

/// Checks and re-encodes an upload. CPU-bound, up to [`MAX_DECODE_BYTES`] and a copy for a turned or converted
/// picture: call it off the async runtime's threads, within `bounds.image_decodes`, after [`inspect`]. What is stored
/// is never larger than the upload limit: a re-encoding that comes out larger is made again as a JPEG (transparency
/// flattened), at a lower quality if need be, and an image that does not fit even so is refused (`TooLarge`).
pub fn clean(bytes: &[u8]) -> Result<CleanImage, ImageProblem> {
    clean_within(bytes, MAX_IMAGE_BYTES)
}

/// [`clean`] with the stored image's limit `stored_max` (the tests lower it).
fn clean_within(bytes: &[u8], stored_max: usize) -> Result<CleanImage, ImageProblem> {
    let Header { format, .. } = inspect(bytes)?;
    let mut decoder = reader(bytes, format)
        .into_decoder()
        .map_err(|err| problem_of(&err))?;
    let orientation = decoder.orientation().map_err(|err| problem_of(&err))?;
    // `into_decoder` sets the limits but, unlike `ImageReader::decode`, does not count the picture's own buffer
    // against `max_alloc`: reserve it here, and hand the decoder what is left for its working memory.
    let mut budget = limits();
    budget
        .reserve(decoder.total_bytes())
        .map_err(|err| problem_of(&err))?;
    decoder.set_limits(budget).map_err(|err| problem_of(&err))?;
    let mut image = DynamicImage::from_decoder(decoder).map_err(|err| problem_of(&err))?;
    image.apply_orientation(orientation);
    let (width, height) = (image.width(), image.height());
    let mut out = Cursor::new(Vec::new());
    // `into_rgb8`/`into_rgba8` take the picture without a copy when it is already in that layout.
    let (image, content_type, extension) = match format {
        ImageFormat::Jpeg => {
            let rgb = DynamicImage::ImageRgb8(image.into_rgb8());
            JpegEncoder::new_with_quality(&mut out, JPEG_QUALITY)
                .encode_image(&rgb)
                .map_err(|_| ImageProblem::NotAnImage)?;
            (rgb, "image/jpeg", "jpg")
        }
        ImageFormat::Png => {
            image
                .write_to(&mut out, ImageFormat::Png)
                .map_err(|_| ImageProblem::NotAnImage)?;
            (image, "image/png", "png")
        }
        _ => {
            // The WebP encoder is lossless and takes 8-bit RGB(A).
            let image = if image.color().has_alpha() {
                DynamicImage::ImageRgba8(image.into_rgba8())
            } else {
                DynamicImage::ImageRgb8(image.into_rgb8())
            };
            image
                .write_to(&mut out, ImageFormat::WebP)
                .map_err(|_| ImageProblem::NotAnImage)?;
            (image, "image/webp", "webp")
        }
    };
    let mut bytes = out.into_inner();
    let (mut content_type, mut extension) = (content_type, extension);
    if bytes.len() > stored_max {
        bytes = smaller_jpeg(&image, stored_max)?;
        (content_type, extension) = ("image/jpeg", "jpg");
    }
    Ok(CleanImage {
        bytes,
        content_type,
        extension,
        width,
        height,
    })
}

/// `image` as a JPEG of at most `stored_max` bytes, at the first of [`SMALLER_JPEG_QUALITIES`] that fits it, its
/// transparency flattened onto white (a screenshot's transparent parts would otherwise turn black).
fn smaller_jpeg(image: &DynamicImage, stored_max: usize) -> Result<Vec<u8>, ImageProblem> {
    let rgb = if image.color().has_alpha() {
        let rgba = image.to_rgba8();
        let mut flat = image::RgbImage::new(rgba.width(), rgba.height());
        for (to, from) in flat.pixels_mut().zip(rgba.pixels()) {
            let [r, g, b, a] = from.0;
            let over_white = |c: u8| {
                let (c, a) = (u16::from(c), u16::from(a));
                u8::try_from((c * a + 255 * (255 - a)) / 255).unwrap_or(255)
            };
            *to = image::Rgb([over_white(r), over_white(g), over_white(b)]);
        }
        flat
    } else {
        image.to_rgb8()
    };
    for quality in SMALLER_JPEG_QUALITIES {
        let mut out = Cursor::new(Vec::new());
        JpegEncoder::new_with_quality(&mut out, quality)
            .encode_image(&rgb)
            .map_err(|_| ImageProblem::NotAnImage)?;
        if out.get_ref().len() <= stored_max {
            return Ok(out.into_inner());
        }
    }
    Err(ImageProblem::TooLarge)
}

fn problem_of(err: &image::ImageError) -> ImageProblem {
    match err {
        image::ImageError::Limits(_) => ImageProblem::TooManyPixels,
        _ => ImageProblem::NotAnImage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Rgb, RgbImage};

    fn photo(format: ImageFormat) -> Vec<u8> {
        let img = RgbImage::from_fn(40, 30, |x, y| Rgb([(x * 6) as u8, (y * 8) as u8, 90]));
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageRgb8(img)
            .write_to(&mut out, format)
            .unwrap();
        out.into_inner()
    }

    /// A JPEG with an EXIF segment (APP1) right after its start marker, holding a recognisable text.
    fn jpeg_with_exif() -> Vec<u8> {
        let plain = photo(ImageFormat::Jpeg);
        let payload = b"Exif\0\0MM\0*\0\0\0\x08\0\0GPS-SECRET-CAMERA-SERIAL";
        let len = u16::try_from(payload.len() + 2).unwrap().to_be_bytes();
        let mut out = plain[..2].to_vec();
        out.extend_from_slice(&[0xFF, 0xE1, len[0], len[1]]);
        out.extend_from_slice(payload);
        out.extend_from_slice(&plain[2..]);
        out
    }

    #[test]
    fn jpeg_png_and_webp_are_taken_and_re_encoded_in_their_format() {
        for (format, content_type) in [
            (ImageFormat::Jpeg, "image/jpeg"),
            (ImageFormat::Png, "image/png"),
            (ImageFormat::WebP, "image/webp"),
        ] {
            let clean = clean(&photo(format)).unwrap();
            assert_eq!(clean.content_type, content_type);
            assert_eq!((clean.width, clean.height), (40, 30));
            assert_eq!(image::guess_format(&clean.bytes).unwrap(), format);
        }
    }

    fn grey_png(width: u32, height: u32) -> Vec<u8> {
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageLuma8(image::GrayImage::new(width, height))
            .write_to(&mut out, ImageFormat::Png)
            .unwrap();
        out.into_inner()
    }

    #[test]
    fn the_header_decides_the_pixels_and_sides_before_any_decoding() {
        let at_most = grey_png(6000, 4000);
        assert_eq!(
            inspect(&at_most),
            Ok(Header {
                format: ImageFormat::Png,
                width: 6000,
                height: 4000
            })
        );
        assert_eq!(
            inspect(&grey_png(6000, 4001)).unwrap_err(),
            ImageProblem::TooManyPixels
        );
        assert!(inspect(&grey_png(MAX_SIDE, 1)).is_ok());
        assert_eq!(
            inspect(&grey_png(MAX_SIDE + 1, 1)).unwrap_err(),
            ImageProblem::TooManyPixels
        );
        assert_eq!(
            clean(&grey_png(1, MAX_SIDE + 1)).unwrap_err(),
            ImageProblem::TooManyPixels
        );
    }

    #[test]
    fn metadata_is_stripped() {
        let with_exif = jpeg_with_exif();
        assert!(with_exif.windows(10).any(|w| w == b"GPS-SECRET"));
        let clean = clean(&with_exif).unwrap();
        assert!(!clean.bytes.windows(10).any(|w| w == b"GPS-SECRET"));
        assert!(!clean.bytes.windows(4).any(|w| w == b"Exif"));
    }

    /// A noisy picture with a transparent half: its lossless re-encoding is large, its JPEG much smaller.
    fn noisy(format: ImageFormat) -> Vec<u8> {
        let mut seed = 7u32;
        let img = image::RgbaImage::from_fn(200, 150, |x, _| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let n = (seed >> 16) as u8 / 8;
            image::Rgba([100 + n, 150 - n, 50 + n, if x < 100 { 0 } else { 255 }])
        });
        let mut out = Cursor::new(Vec::new());
        DynamicImage::ImageRgba8(img)
            .write_to(&mut out, format)
            .unwrap();
        out.into_inner()
    }

    #[test]
    fn what_is_stored_is_never_larger_than_the_limit() {
        for format in [ImageFormat::Png, ImageFormat::WebP] {
            let upload = noisy(format);
            let own = clean_within(&upload, usize::MAX).unwrap();
            let limit = own.bytes.len() / 2;
            let clean = clean_within(&upload, limit).unwrap();
            assert!(clean.bytes.len() <= limit, "{format:?}");
            assert_eq!(clean.content_type, "image/jpeg");
            assert_eq!(clean.extension, "jpg");
            assert_eq!(
                image::guess_format(&clean.bytes).unwrap(),
                ImageFormat::Jpeg
            );
            // The transparent half is white, not black.
            let back = image::load_from_memory(&clean.bytes).unwrap().to_rgb8();
            assert!(
                back.get_pixel(10, 10).0.iter().all(|c| *c > 230),
                "{:?}",
                back.get_pixel(10, 10)
            );
            assert_eq!((clean.width, clean.height), (200, 150));
            // Nothing fits a limit this small: refused, nothing stored.
            assert_eq!(
                clean_within(&upload, 100).unwrap_err(),
                ImageProblem::TooLarge
            );
        }
        // One that fits stays in its own format.
        assert_eq!(
            clean(&noisy(ImageFormat::Png)).unwrap().content_type,
            "image/png"
        );
    }

    #[test]
    fn anything_else_is_refused_whatever_it_claims() {
        assert_eq!(clean(b"").unwrap_err(), ImageProblem::Empty);
        assert_eq!(
            clean(b"%PDF-1.7 not a photo").unwrap_err(),
            ImageProblem::NotAnImage
        );
        assert_eq!(
            clean(b"GIF89a......").unwrap_err(),
            ImageProblem::NotAnImage
        );
        // The right magic bytes and nothing after them.
        let mut truncated = photo(ImageFormat::Png);
        truncated.truncate(40);
        assert_eq!(clean(&truncated).unwrap_err(), ImageProblem::NotAnImage);
        assert_eq!(
            clean(&vec![0xFF; MAX_IMAGE_BYTES + 1]).unwrap_err(),
            ImageProblem::TooLarge
        );
    }
}
