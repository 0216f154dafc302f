//! CSV records as Go's `encoding/csv` reads them for `cbt import`: commas separate fields,
//! `"` quotes a field (`""` inside is one quote, newlines allowed), `\r\n` ends a record like
//! `\n`, and records may have different numbers of fields.

/// Parses `text` into records of fields.
///
/// # Errors
/// Go's `parse error on line N, column M: extraneous or missing " in quoted-field` for a
/// quote that is not closed or not followed by the field's end.
pub fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, String> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    // 1-based byte column of the next character, as Go's csv.ParseError counts.
    let mut column = 1;
    let mut at_field_start = true;
    let mut any = false;
    while let Some(c) = chars.next() {
        any = true;
        column += c.len_utf8();
        match c {
            '"' if at_field_start => {
                let start_line = line;
                loop {
                    match chars.next() {
                        None => {
                            return Err(format!(
                                "parse error on line {start_line}, column {column}: extraneous or missing \" in quoted-field"
                            ))
                        }
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            column += 2;
                            field.push('"');
                        }
                        Some('"') => {
                            column += 1;
                            break;
                        }
                        Some(c) => {
                            column += c.len_utf8();
                            if c == '\n' {
                                line += 1;
                                column = 1;
                            }
                            field.push(c);
                        }
                    }
                }
                at_field_start = false;
                // A closing quote must end the field.
                if !matches!(chars.peek(), None | Some(',' | '\n' | '\r')) {
                    return Err(format!(
                        "parse error on line {line}, column {}: extraneous or missing \" in quoted-field",
                        column - 1
                    ));
                }
            }
            ',' => {
                record.push(core::mem::take(&mut field));
                at_field_start = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                record.push(core::mem::take(&mut field));
                records.push(core::mem::take(&mut record));
                at_field_start = true;
                any = false;
                line += 1;
                column = 1;
            }
            c => {
                field.push(c);
                at_field_start = false;
            }
        }
    }
    if any {
        record.push(field);
        records.push(record);
    }
    // encoding/csv skips empty lines.
    records.retain(|r: &Vec<String>| !(r.len() == 1 && r[0].is_empty()));
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_quotes_blank_lines_and_crlf() {
        let recs = parse_csv(",cf\r\n,\"a,b\"\n\nk,\"say \"\"hi\"\"\nthere\"\nlast,1").unwrap();
        assert_eq!(
            recs,
            vec![
                vec!["", "cf"],
                vec!["", "a,b"],
                vec!["k", "say \"hi\"\nthere"],
                vec!["last", "1"]
            ]
        );
        assert!(parse_csv("a,\"b").is_err());
        assert_eq!(
            parse_csv("x\np2,\"Grace, R\"@1000,").unwrap_err(),
            "parse error on line 2, column 13: extraneous or missing \" in quoted-field"
        );
    }
}
