// The text of a PDF the server sends (KFS, agreement, no-dues certificate), extracted with unpdf (PDF.js), so a journey
// can assert what the borrower's document says.

// PDF.js uses Promise.withResolvers (Node 22); Node 20, which the project also runs on, lacks it.
if (!Promise.withResolvers) {
  Promise.withResolvers = function withResolvers() {
    let resolve;
    let reject;
    const promise = new this((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

/** The PDF's text, pages joined, with every run of white space (no-break spaces too) made one space. */
export async function pdfText(bytes) {
  const { extractText } = await import('unpdf');
  const { text } = await extractText(new Uint8Array(bytes), { mergePages: true });
  return text.replace(/\s+/gu, ' ');
}
