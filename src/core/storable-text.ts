/**
 * Text from another server (a feed's line quoted in an error, a webhook receiver's answer) as it
 * can be stored and shown: such text can hold any bytes, and PostgreSQL's text type refuses NUL.
 * Control characters but tab and newline become \uXXXX escapes, lone surrogates U+FFFD, and the
 * text is cut at `maxChars` (an ellipsis marks the cut).
 */
export function storableText(text: string, maxChars: number): string {
  const escaped = text.replace(/\p{Cc}/gu, (c) => (c === '\t' || c === '\n' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  const cut = escaped.length > maxChars ? `${escaped.slice(0, maxChars - 1)}…` : escaped;
  // After the cut, which can split a surrogate pair.
  return cut.replace(/\p{Cs}/gu, '\uFFFD');
}
