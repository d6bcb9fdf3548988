// `format` assertions (crates/schema/src/validate/formats.rs): date-time, date, uuid, email,
// uri, with exactly the Rust validator's acceptance. Every accepted string is ASCII (a non-ASCII
// character never fits where these grammars look), so the checks read UTF-16 code units.

const NON_ASCII = /[^\x00-\x7f]/;

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isAlpha = (c: number): boolean => (c | 32) >= 97 && (c | 32) <= 122;
const isAlnum = (c: number): boolean => isDigit(c) || isAlpha(c);
const isHex = (c: number): boolean => isDigit(c) || ((c | 32) >= 97 && (c | 32) <= 102);
const all = (s: string, ok: (c: number) => boolean): boolean => {
  for (let i = 0; i < s.length; i++) if (!ok(s.charCodeAt(i))) return false;
  return true;
};

/** `s.slice(at, at + n)` as a number when it is n ASCII digits, else -1. */
function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = s.charCodeAt(i);
    if (!isDigit(c)) return -1;
    v = v * 10 + c - 48;
  }
  return v;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** RFC 3339 `full-date` at the start of `s` (exactly 10 characters when `whole`). */
function fullDate(s: string): boolean {
  if (s[4] !== "-" || s[7] !== "-") return false;
  const y = digits(s, 0, 4);
  const m = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  return y >= 0 && m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}

export const isDate = (s: string): boolean => s.length === 10 && fullDate(s);

/** RFC 3339 `date-time` (`T`/`Z` any case, optional fraction, `Z` or `±HH:MM`); `:60` only at 23:59 UTC. */
export function isDateTime(s: string): boolean {
  if (s.length < 20 || NON_ASCII.test(s) || !fullDate(s) || (s[10] !== "T" && s[10] !== "t")) return false;
  if (s[13] !== ":" || s[16] !== ":") return false;
  const hh = digits(s, 11, 2);
  const mm = digits(s, 14, 2);
  const ss = digits(s, 17, 2);
  if (hh < 0 || mm < 0 || ss < 0 || hh > 23 || mm > 59 || ss > 60) return false;
  let i = 19;
  if (s[i] === ".") {
    let j = i + 1;
    while (j < s.length && isDigit(s.charCodeAt(j))) j++;
    if (j === i + 1) return false;
    i = j;
  }
  const rest = s.slice(i);
  let offset = 0;
  if (rest !== "Z" && rest !== "z") {
    if (rest.length !== 6 || (rest[0] !== "+" && rest[0] !== "-") || rest[3] !== ":") return false;
    const oh = digits(rest, 1, 2);
    const om = digits(rest, 4, 2);
    if (oh < 0 || om < 0 || oh > 23 || om > 59) return false;
    offset = (rest[0] === "+" ? 1 : -1) * (oh * 60 + om);
  }
  if (ss === 60) {
    const utc = (((hh * 60 + mm - offset) % 1440) + 1440) % 1440;
    if (utc !== 23 * 60 + 59) return false;
  }
  return true;
}

/** `8-4-4-4-12` hexadecimal digits, any case. */
export function isUuid(s: string): boolean {
  if (s.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23 ? c !== 45 : !isHex(c)) return false;
  }
  return true;
}

/** `Snum` dotted quad; `strict`: RFC 3986 `dec-octet` (no leading zeros). */
function isIpv4(s: string, strict: boolean): boolean {
  const parts = s.split(".");
  return (
    parts.length === 4 &&
    parts.every((p) => p.length >= 1 && p.length <= 3 && all(p, isDigit) && (!strict || p.length === 1 || p[0] !== "0") && Number(p) <= 255)
  );
}

/** RFC 3986 `IPv6address`. */
function isIpv6(s: string): boolean {
  const groups = (part: string, ipv4Last: boolean): number => {
    if (part === "") return 0;
    const pieces = part.split(":");
    let n = 0;
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i]!;
      if (i + 1 === pieces.length && ipv4Last && p.includes(".")) {
        if (!isIpv4(p, true)) return -1;
        n += 2;
      } else if (p.length >= 1 && p.length <= 4 && all(p, isHex)) n += 1;
      else return -1;
    }
    return n;
  };
  const at = s.indexOf("::");
  if (at < 0) return groups(s, true) === 8;
  const tail = s.slice(at + 2);
  if (tail.includes("::")) return false;
  const h = groups(s.slice(0, at), false);
  const t = groups(tail, true);
  return h >= 0 && t >= 0 && h + t <= 7;
}

const isUnreserved = (c: number): boolean => isAlnum(c) || c === 45 || c === 46 || c === 95 || c === 126;
const isSubDelim = (c: number): boolean => "!$&'()*+,;=".includes(String.fromCharCode(c));
const isPchar = (c: number): boolean => isUnreserved(c) || isSubDelim(c) || c === 58 || c === 64;
const isQueryChar = (c: number): boolean => isPchar(c) || c === 47 || c === 63;

/** Every character is `allowed` or part of a `%HH` escape. */
function uriChars(s: string, allowed: (c: number) => boolean): boolean {
  for (let i = 0; i < s.length; ) {
    if (s[i] === "%") {
      if (i + 2 >= s.length || !isHex(s.charCodeAt(i + 1)) || !isHex(s.charCodeAt(i + 2))) return false;
      i += 3;
    } else if (allowed(s.charCodeAt(i))) i++;
    else return false;
  }
  return true;
}

/** `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`. */
function isIpvFuture(s: string): boolean {
  const dot = s.indexOf(".");
  if ((s[0] !== "v" && s[0] !== "V") || dot < 0) return false;
  const hex = s.slice(1, dot);
  const tail = s.slice(dot + 1);
  return hex !== "" && all(hex, isHex) && tail !== "" && all(tail, (c) => isUnreserved(c) || isSubDelim(c) || c === 58);
}

/** `authority = [ userinfo "@" ] host [ ":" port ]`. */
function isAuthority(a: string): boolean {
  const at = a.indexOf("@");
  if (at >= 0 && !uriChars(a.slice(0, at), (c) => isUnreserved(c) || isSubDelim(c) || c === 58)) return false;
  const hostport = at >= 0 ? a.slice(at + 1) : a;
  let hostOk: boolean;
  let port: string;
  if (hostport[0] === "[") {
    const close = hostport.indexOf("]");
    if (close < 0) return false;
    const literal = hostport.slice(1, close);
    const after = hostport.slice(close + 1);
    if (after !== "" && after[0] !== ":") return false;
    port = after.slice(1);
    hostOk = isIpv6(literal) || isIpvFuture(literal);
  } else {
    const colon = hostport.indexOf(":");
    const host = colon >= 0 ? hostport.slice(0, colon) : hostport;
    port = colon >= 0 ? hostport.slice(colon + 1) : "";
    hostOk = uriChars(host, (c) => isUnreserved(c) || isSubDelim(c));
  }
  return hostOk && all(port, isDigit);
}

/** An absolute URI per RFC 3986 (`scheme ":" hier-part ["?" query] ["#" fragment]`), ASCII only. */
export function isUri(s: string): boolean {
  const colon = s.indexOf(":");
  if (NON_ASCII.test(s) || colon < 1 || !isAlpha(s.charCodeAt(0))) return false;
  if (!all(s.slice(0, colon), (c) => isAlnum(c) || c === 43 || c === 45 || c === 46)) return false;
  let rest = s.slice(colon + 1);
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    if (!uriChars(rest.slice(hash + 1), isQueryChar)) return false;
    rest = rest.slice(0, hash);
  }
  const q = rest.indexOf("?");
  if (q >= 0) {
    if (!uriChars(rest.slice(q + 1), isQueryChar)) return false;
    rest = rest.slice(0, q);
  }
  let path = rest;
  if (rest.startsWith("//")) {
    const after = rest.slice(2);
    const slash = after.indexOf("/");
    const end = slash < 0 ? after.length : slash;
    if (!isAuthority(after.slice(0, end))) return false;
    path = after.slice(end);
  }
  return uriChars(path, (c) => isPchar(c) || c === 47);
}

const isAtext = (c: number): boolean => isAlnum(c) || "!#$%&'*+-/=?^_`{|}~".includes(String.fromCharCode(c));

/** Labels of 1 to 63 letters, digits and inner hyphens; at most 253 characters. */
const isHostname = (s: string): boolean =>
  s !== "" && s.length <= 253 && s.split(".").every((l) => l.length >= 1 && l.length <= 63 && all(l, (c) => isAlnum(c) || c === 45) && l[0] !== "-" && l[l.length - 1] !== "-");

/** RFC 5321 `Mailbox`: dot-atom or quoted local part; hostname or address-literal domain; ASCII only. */
export function isEmail(s: string): boolean {
  if (s === "" || NON_ASCII.test(s)) return false;
  let domainStart: number;
  if (s[0] === '"') {
    let i = 1;
    for (;;) {
      if (i >= s.length) return false;
      const c = s.charCodeAt(i);
      if (c === 34) break;
      if (c === 92) {
        const next = s.charCodeAt(i + 1);
        if (!(next >= 32 && next <= 126)) return false;
        i += 2;
      } else if (c >= 32 && c <= 126) i++;
      else return false;
    }
    if (s[i + 1] !== "@" || i + 1 > 64) return false;
    domainStart = i + 2;
  } else {
    const at = s.indexOf("@");
    if (at < 0) return false;
    const local = s.slice(0, at);
    if (local === "" || local.length > 64 || !local.split(".").every((a) => a !== "" && all(a, isAtext))) return false;
    domainStart = at + 1;
  }
  const domain = s.slice(domainStart);
  if (domain.length >= 2 && domain[0] === "[" && domain[domain.length - 1] === "]") {
    const literal = domain.slice(1, -1);
    return literal.startsWith("IPv6:") ? isIpv6(literal.slice(5)) : isIpv4(literal, false);
  }
  return isHostname(domain);
}
