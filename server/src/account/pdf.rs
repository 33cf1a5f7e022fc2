//! A PDF of lines of text in one embedded TrueType font, for the loan's documents (`documents.rs`): pages of one size
//! (A4 there), text placed by its baseline in millimetres from the page's lower left corner, the font subset to the
//! glyphs the text uses and embedded as a CID font (Identity-H: two bytes a glyph) with its widths and a ToUnicode
//! map, so that every character prints (₹, Rp, Indonesian) and the text can be searched and copied. Streams are
//! deflated.
//!
//! Built on pdf-writer (the objects), subsetter (the font's subset) and ttf-parser (its glyphs and metrics): small
//! crates of the same project (typst) where printpdf brought a PDF reader and a shaping engine we never used.

use std::io::Write;

use anyhow::Context;
use flate2::Compression;
use flate2::write::ZlibEncoder;
use pdf_writer::types::{CidFontType, FontFlags, SystemInfo, UnicodeCmap};
use pdf_writer::{Content, Filter, Finish, Name, Pdf, Rect, Ref, Str, TextStr};
use subsetter::GlyphRemapper;
use ttf_parser::{Face, GlyphId};

/// Points in a millimetre.
const PT_PER_MM: f32 = 72.0 / 25.4;
/// The font's name in each page's resources.
const FONT_KEY: Name<'static> = Name(b"F1");
/// How a CID font with an Identity mapping names its character collection.
const IDENTITY: SystemInfo = SystemInfo {
    registry: Str(b"Adobe"),
    ordering: Str(b"Identity"),
    supplement: 0,
};

/// A document being written: its finished pages and the one being filled.
pub struct TextPdf<'f> {
    font: &'f [u8],
    face: Face<'f>,
    /// Each glyph used, by its number in the subset (the order of first use; 0 is .notdef).
    glyphs: GlyphRemapper,
    /// The character each glyph of the subset stands for, by its number in the subset.
    chars: Vec<Option<char>>,
    width_mm: f32,
    height_mm: f32,
    title: String,
    pages: Vec<Vec<u8>>,
    page: Content,
}

impl<'f> TextPdf<'f> {
    /// A document of one empty page of `width_mm` × `height_mm`, its text set in `font` (TrueType or OpenType bytes).
    pub fn new(font: &'f [u8], title: &str, width_mm: f32, height_mm: f32) -> anyhow::Result<Self> {
        let face = Face::parse(font, 0).context("reading the PDF font")?;
        Ok(Self {
            font,
            face,
            glyphs: GlyphRemapper::new(),
            chars: vec![None],
            width_mm,
            height_mm,
            title: title.to_owned(),
            pages: Vec::new(),
            page: Content::new(),
        })
    }

    /// Ends the page being filled and starts another.
    pub fn new_page(&mut self) {
        let page = std::mem::replace(&mut self.page, Content::new());
        self.pages.push(page.finish().into_vec());
    }

    /// Writes `text` in one line at `size` points, its baseline starting `x_mm`, `y_mm` from the lower left corner.
    /// A character the font lacks prints as its .notdef box.
    pub fn text(&mut self, text: &str, size: f32, x_mm: f32, y_mm: f32) {
        let mut cids = Vec::with_capacity(text.len() * 2);
        for c in text.chars() {
            let glyph = self.face.glyph_index(c).unwrap_or(GlyphId(0));
            let cid = self.glyphs.remap(glyph.0);
            let slot = usize::from(cid);
            if slot >= self.chars.len() {
                self.chars.resize(slot + 1, None);
            }
            if glyph.0 != 0 {
                self.chars[slot].get_or_insert(c);
            }
            cids.extend_from_slice(&cid.to_be_bytes());
        }
        self.page
            .begin_text()
            .set_font(FONT_KEY, size)
            .next_line(x_mm * PT_PER_MM, y_mm * PT_PER_MM)
            .show(Str(&cids))
            .end_text();
    }

    /// The document's bytes.
    pub fn finish(mut self) -> anyhow::Result<Vec<u8>> {
        self.new_page();
        // Objects are numbered from 1, in the order they are asked for.
        let mut last = 0;
        let mut next = || {
            last += 1;
            Ref::new(last)
        };
        let (catalog, tree, info) = (next(), next(), next());
        let (font, cid_font, descriptor, font_file, to_unicode) =
            (next(), next(), next(), next(), next());

        let mut pdf = Pdf::new();
        pdf.set_version(1, 7);
        pdf.document_info(info)
            .title(TextStr(&self.title))
            .producer(TextStr("Kilat"));
        pdf.catalog(catalog).pages(tree);

        let media = Rect::new(
            0.0,
            0.0,
            self.width_mm * PT_PER_MM,
            self.height_mm * PT_PER_MM,
        );
        let mut page_ids = Vec::with_capacity(self.pages.len());
        for content in &self.pages {
            let (page_id, content_id) = (next(), next());
            page_ids.push(page_id);
            let mut page = pdf.page(page_id);
            page.parent(tree).media_box(media).contents(content_id);
            page.resources().fonts().pair(FONT_KEY, font);
            page.finish();
            pdf.stream(content_id, &deflate(content)?)
                .filter(Filter::FlateDecode);
        }
        let count = i32::try_from(page_ids.len()).context("too many pages")?;
        pdf.pages(tree).kids(page_ids).count(count);

        self.write_font(
            &mut pdf,
            [font, cid_font, descriptor, font_file, to_unicode],
        )?;
        Ok(pdf.finish())
    }

    /// The font's five objects: the Type 0 font the pages name, its CID font with the glyphs' widths, its descriptor,
    /// the subset font file and the ToUnicode map.
    fn write_font(
        &self,
        pdf: &mut Pdf,
        [font, cid_font, descriptor, font_file, to_unicode]: [Ref; 5],
    ) -> anyhow::Result<()> {
        let face = &self.face;
        let subset = subsetter::subset(self.font, 0, &self.glyphs)
            .map_err(|e| anyhow::anyhow!("subsetting the PDF font: {e}"))?;
        let family = face
            .names()
            .into_iter()
            .filter(|n| n.name_id == ttf_parser::name_id::POST_SCRIPT_NAME)
            .find_map(|n| n.to_string())
            .unwrap_or_else(|| "Font".to_owned());
        let base_font = format!("{}+{family}", subset_tag(&self.glyphs));
        let base_font = Name(base_font.as_bytes());
        // The font's units, per 1,000 of PDF text space.
        let scale = 1000.0 / f32::from(face.units_per_em());
        let to_pdf = |units: i16| f32::from(units) * scale;

        pdf.type0_font(font)
            .base_font(base_font)
            .encoding_predefined(Name(b"Identity-H"))
            .descendant_font(cid_font)
            .to_unicode(to_unicode);

        let widths: Vec<f32> = self
            .glyphs
            .remapped_gids()
            .map(|gid| f32::from(face.glyph_hor_advance(GlyphId(gid)).unwrap_or(0)) * scale)
            .collect();
        let mut cid = pdf.cid_font(cid_font);
        cid.subtype(CidFontType::Type2)
            .base_font(base_font)
            .system_info(IDENTITY)
            .font_descriptor(descriptor)
            .default_width(0.0)
            .cid_to_gid_map_predefined(Name(b"Identity"));
        cid.widths().consecutive(0, widths);
        cid.finish();

        let bbox = face.global_bounding_box();
        pdf.font_descriptor(descriptor)
            .name(base_font)
            .flags(FontFlags::SYMBOLIC)
            .bbox(Rect::new(
                to_pdf(bbox.x_min),
                to_pdf(bbox.y_min),
                to_pdf(bbox.x_max),
                to_pdf(bbox.y_max),
            ))
            .italic_angle(face.italic_angle())
            .ascent(to_pdf(face.ascender()))
            .descent(to_pdf(face.descender()))
            .cap_height(to_pdf(face.capital_height().unwrap_or(face.ascender())))
            .stem_v(80.0)
            .font_file2(font_file);
        pdf.stream(font_file, &deflate(&subset)?)
            .filter(Filter::FlateDecode);

        let mut cmap = UnicodeCmap::new(Name(b"Kilat-UTF16"), IDENTITY);
        for (cid, c) in self.chars.iter().enumerate() {
            if let (Some(c), Ok(cid)) = (c, u16::try_from(cid)) {
                cmap.pair(cid, *c);
            }
        }
        pdf.cmap(to_unicode, &cmap.finish());
        Ok(())
    }
}

/// A subset font's name starts with six capital letters that tell one subset from another (PDF 32000-1, 9.6.4):
/// here from a hash of the glyphs it holds, so the same text gives the same name.
fn subset_tag(glyphs: &GlyphRemapper) -> String {
    // FNV-1a over the glyph numbers, in the subset's order.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for gid in glyphs.remapped_gids() {
        for byte in gid.to_le_bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    (0..6)
        .map(|i| char::from(b'A' + ((hash >> (i * 8)) % 26) as u8))
        .collect()
}

fn deflate(bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(bytes)?;
    Ok(encoder.finish()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FONT: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");

    #[test]
    fn the_same_text_gives_the_same_subset_name_and_other_text_another() {
        let tag = |text: &str| {
            let mut pdf = TextPdf::new(FONT, "t", 210.0, 297.0).unwrap();
            pdf.text(text, 10.0, 20.0, 20.0);
            subset_tag(&pdf.glyphs)
        };
        assert_eq!(tag("Rp 1.000"), tag("Rp 1.000"));
        assert_ne!(tag("Rp 1.000"), tag("₹ 1,000"));
        assert!(tag("₹").chars().all(|c| c.is_ascii_uppercase()));
    }

    #[test]
    fn each_glyph_is_written_as_its_number_in_the_subset_and_mapped_to_its_character() {
        let mut pdf = TextPdf::new(FONT, "t", 210.0, 297.0).unwrap();
        pdf.text("₹aa", 10.0, 20.0, 20.0);
        // .notdef is 0; ₹ the first glyph used, then a.
        assert_eq!(pdf.glyphs.num_gids(), 3);
        assert_eq!(pdf.chars, vec![None, Some('₹'), Some('a')]);
        let page = std::mem::replace(&mut pdf.page, Content::new()).finish();
        // Two bytes a glyph (Identity-H), as a literal string with octal escapes.
        let page = String::from_utf8(page.into_vec()).unwrap();
        assert!(page.contains(r"(\000\001\000\002\000\002) Tj"), "{page}");
    }

    #[test]
    fn a_character_the_font_lacks_prints_as_notdef_without_a_unicode_mapping() {
        let mut pdf = TextPdf::new(FONT, "t", 210.0, 297.0).unwrap();
        // DejaVu Sans has no Han characters.
        pdf.text("漢", 10.0, 20.0, 20.0);
        assert_eq!(pdf.glyphs.num_gids(), 1);
        assert_eq!(pdf.chars, vec![None]);
        assert!(pdf.finish().unwrap().starts_with(b"%PDF-1.7"));
    }

    #[test]
    fn the_font_is_subset() {
        let mut pdf = TextPdf::new(FONT, "t", 210.0, 297.0).unwrap();
        pdf.text("Kilat ₹ 1,000", 10.0, 20.0, 20.0);
        pdf.new_page();
        pdf.text("Rp 1.000.000", 10.0, 20.0, 20.0);
        let bytes = pdf.finish().unwrap();
        // The whole font is 757 kB; its subset of a dozen glyphs, deflated, a few kB.
        assert!(bytes.len() < 20_000, "{} bytes", bytes.len());
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains("/Count 2"), "two pages");
        assert!(text.contains("/Identity-H"));
        // A subset's name: six capitals, then the font's PostScript name.
        assert!(
            text.split("/BaseFont /")
                .nth(1)
                .is_some_and(|name| name[..6].bytes().all(|b| b.is_ascii_uppercase())
                    && name[6..].starts_with("+DejaVuSans")),
            "{text}"
        );
    }
}
