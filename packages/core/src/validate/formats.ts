// `format` assertions (crates/schema/src/validate/formats.rs): date-time, date, uuid, email,
// uri, with exactly the Rust validator's acceptance. Every accepted string is ASCII (a non-ASCII
// character never fits where these grammars look): the grammars are ASCII regular expressions.

/** Unreserved characters and sub-delims (RFC 3986), `extra` added, or a `%HH` escape: the whole string. */
const uriChars = (extra: string) => new RegExp(`^(?:[-\\w.~!$&'()*+,;=${extra}]|%[\\da-fA-F]{2})*$`);
const REG_NAME = uriChars("");
const USERINFO = uriChars(":");
const PATH = uriChars(":@/");
const QUERY = uriChars(":@/?");
const OCTET = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
/** RFC 3986 `IPv4address` (no leading zeros). */
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
/** A dotted quad of 1 to 3 digits each at most 255 (an email address literal). */
const QUAD = /^(?:(?:[01]?\d?\d|2[0-4]\d|25[0-5])\.){3}(?:[01]?\d?\d|2[0-4]\d|25[0-5])$/;
const H16 = /^[\da-fA-F]{1,4}$/;

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

const validDate = (y: string, m: string, d: string): boolean => +m >= 1 && +m <= 12 && +d >= 1 && +d <= daysInMonth(+y, +m);

export const isDate = (s: string): boolean => {
  const m = /^(\d{4})-(\d\d)-(\d\d)$/.exec(s);
  return !!m && validDate(m[1]!, m[2]!, m[3]!);
};

/** RFC 3339 `date-time` (`T`/`Z` any case, optional fraction, `Z` or `±HH:MM`); `:60` only at 23:59 UTC. */
export function isDateTime(s: string): boolean {
  const m = /^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:[Zz]|([+-])(\d\d):(\d\d))$/.exec(s);
  if (!m || !validDate(m[1]!, m[2]!, m[3]!)) return false;
  const [hh, mm, ss, oh, om] = [4, 5, 6, 8, 9].map((i) => +(m[i] ?? 0)) as [number, number, number, number, number];
  if (hh > 23 || mm > 59 || ss > 60 || oh > 23 || om > 59) return false;
  const offset = (m[7] === "-" ? -1 : 1) * (oh * 60 + om);
  return ss !== 60 || (((hh * 60 + mm - offset) % 1440) + 1440) % 1440 === 23 * 60 + 59;
}

/** `8-4-4-4-12` hexadecimal digits, any case. */
export const isUuid = (s: string): boolean => /^[\da-f]{8}(?:-[\da-f]{4}){3}-[\da-f]{12}$/i.test(s);

/** RFC 3986 `IPv6address`: 8 groups, or fewer around one `::`; the last two may be an IPv4 address. */
function isIpv6(s: string): boolean {
  /** How many 16-bit groups `part` holds (`-1`: not groups). */
  const groups = (part: string, ipv4Last: boolean): number =>
    part === ""
      ? 0
      : part.split(":").reduce((n, p, i, all) => (n < 0 ? n : ipv4Last && i === all.length - 1 && p.includes(".") ? (IPV4.test(p) ? n + 2 : -1) : H16.test(p) ? n + 1 : -1), 0);
  const [head, tail, more] = s.split("::");
  if (more !== undefined) return false;
  if (tail === undefined) return groups(s, true) === 8;
  const h = groups(head!, false);
  const t = groups(tail, true);
  return h >= 0 && t >= 0 && h + t <= 7;
}

/** `authority = [ userinfo "@" ] host [ ":" port ]`, the host a reg-name or an IP literal (`[IPv6]`, `[vX.future]`). */
function isAuthority(a: string): boolean {
  const at = a.indexOf("@");
  if (at >= 0 && !USERINFO.test(a.slice(0, at))) return false;
  const m = /^(?:\[([^\]]*)\]|([^:]*))(?::\d*)?$/.exec(a.slice(at + 1));
  return !!m && (m[1] === undefined ? REG_NAME.test(m[2]!) : isIpv6(m[1]) || /^[vV][\da-fA-F]+\.[-\w.~!$&'()*+,;=:]+$/.test(m[1]));
}

/** An absolute URI per RFC 3986 (`scheme ":" hier-part ["?" query] ["#" fragment]`), ASCII only. */
export function isUri(s: string): boolean {
  const m = /^[a-zA-Z][a-zA-Z\d+.-]*:([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s.exec(s);
  if (!m || !QUERY.test(m[2] ?? "") || !QUERY.test(m[3] ?? "")) return false;
  let path = m[1]!;
  if (path.startsWith("//")) {
    const end = (path.indexOf("/", 2) + 1 || path.length + 1) - 1;
    if (!isAuthority(path.slice(2, end))) return false;
    path = path.slice(end);
  }
  return PATH.test(path);
}

/** Labels of 1 to 63 letters, digits and inner hyphens; at most 253 characters. */
const HOSTNAME = /^(?!-)[a-zA-Z\d-]{1,63}(?<!-)(?:\.(?!-)[a-zA-Z\d-]{1,63}(?<!-))*$/;

/** RFC 5321 `Mailbox`: dot-atom or quoted local part; hostname or address-literal domain; ASCII only. */
export function isEmail(s: string): boolean {
  const local = /^(?:"(?:[ !#-[\]-~]|\\[ -~])*"(?=@)|[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*(?=@))/.exec(s)?.[0];
  if (local === undefined || local.length > 64) return false;
  const domain = s.slice(local.length + 1);
  const literal = /^\[(.*)\]$/s.exec(domain)?.[1];
  if (literal !== undefined) return literal.startsWith("IPv6:") ? isIpv6(literal.slice(5)) : QUAD.test(literal);
  return domain.length <= 253 && HOSTNAME.test(domain);
}
