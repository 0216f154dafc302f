//! Splits a console line into words the way a POSIX shell would for `cbt`'s arguments:
//! whitespace separates words; `'...'` is literal; `"..."` allows `\"` and `\\`; a backslash
//! outside quotes escapes the next character; `$'...'` (bash's ANSI-C quoting, which cbt's
//! help names for raw-byte row keys) understands `\xNN`, `\n`, `\t`, `\\` and `\'`.
//!
//! Words are bytes, not text: `$'\xff'` is one byte that is not UTF-8.

/// Splits `line` into words.
///
/// # Errors
/// A message naming the unterminated quote or the bad escape.
pub fn split_args(line: &str) -> Result<Vec<Vec<u8>>, String> {
    let b = line.as_bytes();
    let mut words = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut in_word = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                if in_word {
                    words.push(core::mem::take(&mut cur));
                    in_word = false;
                }
                i += 1;
            }
            b'\'' => {
                in_word = true;
                let end = find(b, i + 1, b'\'').ok_or("unterminated ' quote")?;
                cur.extend_from_slice(&b[i + 1..end]);
                i = end + 1;
            }
            b'$' if b.get(i + 1) == Some(&b'\'') => {
                in_word = true;
                i += 2;
                loop {
                    match b.get(i) {
                        None => return Err("unterminated $' quote".into()),
                        Some(b'\'') => {
                            i += 1;
                            break;
                        }
                        Some(b'\\') => {
                            let (byte, used) = ansi_escape(&b[i + 1..])?;
                            cur.push(byte);
                            i += 1 + used;
                        }
                        Some(&other) => {
                            cur.push(other);
                            i += 1;
                        }
                    }
                }
            }
            b'"' => {
                in_word = true;
                i += 1;
                loop {
                    match b.get(i) {
                        None => return Err("unterminated \" quote".into()),
                        Some(b'"') => {
                            i += 1;
                            break;
                        }
                        Some(b'\\') if matches!(b.get(i + 1), Some(b'"' | b'\\' | b'$')) => {
                            cur.push(b[i + 1]);
                            i += 2;
                        }
                        Some(&other) => {
                            cur.push(other);
                            i += 1;
                        }
                    }
                }
            }
            b'\\' => {
                in_word = true;
                if let Some(&next) = b.get(i + 1) {
                    cur.push(next);
                }
                i += 2;
            }
            _ => {
                in_word = true;
                cur.push(c);
                i += 1;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

fn find(b: &[u8], from: usize, needle: u8) -> Option<usize> {
    b[from..]
        .iter()
        .position(|&c| c == needle)
        .map(|p| p + from)
}

/// One `$'...'` escape (the bytes after the backslash): the byte and how many bytes it used.
fn ansi_escape(rest: &[u8]) -> Result<(u8, usize), String> {
    match rest.first() {
        Some(b'n') => Ok((b'\n', 1)),
        Some(b't') => Ok((b'\t', 1)),
        Some(b'r') => Ok((b'\r', 1)),
        Some(b'0') => Ok((0, 1)),
        Some(b'\\') => Ok((b'\\', 1)),
        Some(b'\'') => Ok((b'\'', 1)),
        Some(b'"') => Ok((b'"', 1)),
        Some(b'x') => {
            let hex: Vec<u8> = rest[1..]
                .iter()
                .take(2)
                .take_while(|c| c.is_ascii_hexdigit())
                .copied()
                .collect();
            let text = core::str::from_utf8(&hex).unwrap_or("");
            let v = u8::from_str_radix(text, 16).map_err(|_| "bad \\x escape".to_string())?;
            Ok((v, 1 + hex.len()))
        }
        _ => Err("bad escape in $'...'".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        split_args(line)
            .unwrap()
            .into_iter()
            .map(|w| String::from_utf8(w).unwrap())
            .collect()
    }

    #[test]
    fn splits_on_whitespace_and_honours_quotes() {
        assert_eq!(words("  read  t prefix=a "), ["read", "t", "prefix=a"]);
        assert_eq!(
            words("set t 'r 1' \"cf:q=a \\\"b\\\"\""),
            ["set", "t", "r 1", "cf:q=a \"b\""]
        );
        assert_eq!(
            words("setgcpolicy t cf 'maxage=1d || maxversions=2'"),
            ["setgcpolicy", "t", "cf", "maxage=1d || maxversions=2"]
        );
        assert_eq!(words("a\\ b c"), ["a b", "c"]);
        assert_eq!(words("x ''"), ["x", ""]);
    }

    #[test]
    fn ansi_c_quotes_give_raw_bytes() {
        assert_eq!(
            split_args("lookup t $'\\x00\\xffa\\n'").unwrap()[2],
            b"\x00\xffa\n"
        );
    }

    #[test]
    fn unterminated_quotes_are_errors() {
        assert!(split_args("read 't").is_err());
        assert!(split_args("read \"t").is_err());
        assert!(split_args("read $'t").is_err());
    }
}
