/**
 * docComment renders `text` as a TSDoc block indented by `indent`, or `''` when there is no text.
 * `*\/` inside the text is escaped so it cannot end the comment early; trailing spaces are dropped
 * and blank-line runs are collapsed, so the output is stable.
 */
export function docComment(text: string | undefined, indent = ''): string {
  if (text === undefined) return '';
  const cleaned = text
    .replace(/\r\n?/g, '\n')
    .replace(/\*\//g, '*\\/')
    .split('\n')
    .map((line) => line.replace(/\s+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (cleaned === '') return '';
  const lines = cleaned.split('\n');
  if (lines.length === 1 && cleaned.length + indent.length < 96) {
    return `${indent}/** ${cleaned} */\n`;
  }
  return `${indent}/**\n${lines.map((line) => (line === '' ? `${indent} *` : `${indent} * ${line}`)).join('\n')}\n${indent} */\n`;
}
