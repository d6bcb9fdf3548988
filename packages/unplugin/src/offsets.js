// The compiler speaks UTF-8 byte offsets; JavaScript strings are indexed in UTF-16 code units.

/** UTF-8 length of the UTF-16 code unit at `i` of `s` (a surrogate pair counts 4 on its first unit, 0 on its second). */
function utf8Width(s, i) {
  const c = s.charCodeAt(i);
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 4;
  }
  return 3; // BMP, or a lone surrogate (encoded as U+FFFD, 3 bytes, as TextEncoder and serde do)
}

/**
 * Converts ascending UTF-8 byte offsets into `code` to string (UTF-16) indices, in one pass.
 * Throws on an offset that is past the end, inside a character, or out of order.
 * @param {string} code
 * @param {readonly number[]} byteOffsets ascending
 * @returns {number[]}
 */
export function byteOffsetsToIndices(code, byteOffsets) {
  const out = new Array(byteOffsets.length);
  // All ASCII: bytes and code units coincide (every non-ASCII unit takes at least 2 bytes).
  if (Buffer.byteLength(code, "utf8") === code.length) {
    for (let k = 0; k < byteOffsets.length; k++) {
      const b = byteOffsets[k];
      if (!Number.isInteger(b) || b < 0 || b > code.length) throw new RangeError(`byte offset ${b} is outside the text (${code.length} bytes)`);
      if (k > 0 && b < byteOffsets[k - 1]) throw new RangeError(`byte offsets are not ascending (${byteOffsets[k - 1]} then ${b})`);
      out[k] = b;
    }
    return out;
  }
  let i = 0; // string index
  let bytes = 0; // UTF-8 bytes before index i
  for (let k = 0; k < byteOffsets.length; k++) {
    const target = byteOffsets[k];
    if (!Number.isInteger(target) || target < 0) throw new RangeError(`invalid byte offset ${target}`);
    if (target < bytes) throw new RangeError(`byte offsets are not ascending (${byteOffsets[k - 1]} then ${target})`);
    while (bytes < target && i < code.length) {
      const w = utf8Width(code, i);
      bytes += w;
      i += w === 4 ? 2 : 1;
    }
    if (bytes !== target) {
      throw new RangeError(bytes > target ? `byte offset ${target} falls inside a character` : `byte offset ${target} is outside the text (${bytes} bytes)`);
    }
    out[k] = i;
  }
  return out;
}

/** One byte offset to a string index. */
export function byteOffsetToIndex(code, byteOffset) {
  return byteOffsetsToIndices(code, [byteOffset])[0];
}
