/**
 * The local identity provider's verification mail as a person at `npm start`'s terminal reads
 * it: set apart from the access lines, the link on a line of its own, in colour unless NO_COLOR
 * is set (https://no-color.org). Piped (tests, log files), the mail stays a JSON log line.
 */
export interface LocalMail {
  to: string;
  subject: string;
  link: string;
}

const ESC = String.fromCharCode(27);

export function mailNotice(mail: LocalMail, options: { color: boolean }): string {
  const paint = (codes: string, text: string) => (options.color ? `${ESC}[${codes}m${text}${ESC}[0m` : text);
  return `\n${paint('1;30;43', ' mail sent (local identity provider) ')} to ${paint('1', mail.to)}: ${mail.subject}\n  open ${paint('4;36', mail.link)}\n\n`;
}
