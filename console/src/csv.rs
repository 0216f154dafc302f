//! CSV as `cbt import` reads it, in one place for every reader and writer of it: the console's
//! `import` (the playground and `sparsetable-console`) and `sparsetable-server import` /
//! `export --format csv` (server/src/migrate/csv.rs).
//!
//! Records are what Go's `encoding/csv` reads: commas separate fields, `"` quotes a field
//! (`""` inside is one quote, newlines allowed), `\r\n` ends a record like `\n`, empty lines
//! are skipped and records may have different numbers of fields. Fields are bytes, as Go's
//! strings are: a field that is not UTF-8 passes through unchanged. [`Reader`] reads records
//! one at a time from any [`BufRead`], so a file of any size is read in constant memory.
//!
//! cbt's layout on top of records ([`Columns`]): the first record names the column family of
//! each column (a blank cell repeats the family to its left), the second names the
//! qualifiers, and each later record is a row key followed by one value per column; a blank
//! value writes nothing. With `column-family=F` the family record is absent and every column
//! is in F. With `timestamp=value-encoded` a value `v@123` is `v` at timestamp 123
//! ([`split_timestamp`]).
//!
//! [`write_record`] writes a record as Go's `csv.Writer` does, so a file we write reads back
//! byte for byte through [`Reader`] and through cbt.

use std::io::BufRead;

use sparsetable::Mutation;

/// Reads CSV records one at a time (see the module docs).
#[derive(Debug)]
pub struct Reader<R> {
    input: R,
    /// 1-based line of the next byte, as Go's `csv.ParseError` counts.
    line: usize,
    /// 1-based byte column of the next byte.
    column: usize,
}

fn quote_error(line: usize, column: usize) -> String {
    format!("parse error on line {line}, column {column}: extraneous or missing \" in quoted-field")
}

impl<R: BufRead> Reader<R> {
    /// A reader at the start of `input`.
    pub fn new(input: R) -> Self {
        Reader {
            input,
            line: 1,
            column: 1,
        }
    }

    fn peek(&mut self) -> Result<Option<u8>, String> {
        let buf = self
            .input
            .fill_buf()
            .map_err(|e| format!("reading the csv file: {e}"))?;
        Ok(buf.first().copied())
    }

    fn bump(&mut self) -> Result<Option<u8>, String> {
        let byte = self.peek()?;
        if byte.is_some() {
            self.input.consume(1);
        }
        Ok(byte)
    }

    /// The next record, `None` at the end of the input.
    ///
    /// # Errors
    /// Go's `parse error on line N, column M: extraneous or missing " in quoted-field` for a
    /// quote that is not closed or not followed by the field's end; a read error.
    pub fn next_record(&mut self) -> Result<Option<Vec<Vec<u8>>>, String> {
        loop {
            let mut record = Vec::new();
            let mut field = Vec::new();
            let mut at_field_start = true;
            let mut any = false;
            loop {
                let Some(c) = self.bump()? else {
                    if !any {
                        return Ok(None);
                    }
                    record.push(field);
                    break;
                };
                any = true;
                self.column += 1;
                match c {
                    b'"' if at_field_start => {
                        self.quoted(&mut field)?;
                        at_field_start = false;
                    }
                    b',' => {
                        record.push(core::mem::take(&mut field));
                        at_field_start = true;
                    }
                    b'\r' if self.peek()? == Some(b'\n') => {}
                    b'\n' => {
                        record.push(core::mem::take(&mut field));
                        self.line += 1;
                        self.column = 1;
                        break;
                    }
                    c => {
                        field.push(c);
                        at_field_start = false;
                    }
                }
            }
            // encoding/csv skips empty lines.
            if !(record.len() == 1 && record[0].is_empty()) {
                return Ok(Some(record));
            }
        }
    }

    /// The rest of a quoted field, after its opening quote.
    fn quoted(&mut self, field: &mut Vec<u8>) -> Result<(), String> {
        let start_line = self.line;
        loop {
            match self.bump()? {
                None => return Err(quote_error(start_line, self.column)),
                Some(b'"') if self.peek()? == Some(b'"') => {
                    self.bump()?;
                    self.column += 2;
                    field.push(b'"');
                }
                Some(b'"') => {
                    self.column += 1;
                    break;
                }
                Some(c) => {
                    self.column += 1;
                    if c == b'\n' {
                        self.line += 1;
                        self.column = 1;
                    }
                    field.push(c);
                }
            }
        }
        // A closing quote must end the field.
        if !matches!(self.peek()?, None | Some(b',' | b'\n' | b'\r')) {
            return Err(quote_error(self.line, self.column - 1));
        }
        Ok(())
    }
}

impl<R: BufRead> Iterator for Reader<R> {
    type Item = Result<Vec<Vec<u8>>, String>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_record().transpose()
    }
}

/// Parses `text` into records of fields.
///
/// # Errors
/// As [`Reader::next_record`].
pub fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, String> {
    Reader::new(text.as_bytes())
        .map(|record| {
            // Fields split at ASCII bytes of UTF-8 text are UTF-8 themselves.
            record.map(|r| {
                r.into_iter()
                    .map(|f| String::from_utf8_lossy(&f).into_owned())
                    .collect()
            })
        })
        .collect()
}

/// Whether Go's `csv.Writer` quotes `field`: it holds a comma, quote, CR or LF, starts with
/// white space, or is `\.` (which some readers take for an end of data); an empty field is
/// never quoted.
fn needs_quotes(field: &[u8]) -> bool {
    if field.is_empty() {
        return false;
    }
    if field == b"\\."
        || field
            .iter()
            .any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'))
    {
        return true;
    }
    let first = match core::str::from_utf8(&field[..field.len().min(4)]) {
        Ok(s) => s.chars().next(),
        Err(e) => core::str::from_utf8(&field[..e.valid_up_to()])
            .ok()
            .and_then(|s| s.chars().next()),
    };
    first.is_some_and(char::is_whitespace)
}

/// Appends `fields` as one record, as Go's `csv.Writer` writes it (quotes where needed, `""`
/// for a quote inside, `\n` at the end).
pub fn write_record<F: AsRef<[u8]>>(out: &mut Vec<u8>, fields: &[F]) {
    for (i, field) in fields.iter().enumerate() {
        let field = field.as_ref();
        if i > 0 {
            out.push(b',');
        }
        if needs_quotes(field) {
            out.push(b'"');
            for &b in field {
                if b == b'"' {
                    out.push(b'"');
                }
                out.push(b);
            }
            out.push(b'"');
        } else {
            out.extend_from_slice(field);
        }
    }
    out.push(b'\n');
}

/// `val@ts` as cbt reads it: the text after the last `@` is a timestamp if it parses as an
/// integer, else part of the value.
pub fn split_timestamp(val: &[u8], default_ts: i64) -> (Vec<u8>, i64) {
    if let Some(i) = val.iter().rposition(|&c| c == b'@') {
        if let Some(ts) = core::str::from_utf8(&val[i + 1..])
            .ok()
            .and_then(|t| t.parse::<i64>().ok())
        {
            return (val[..i].to_vec(), ts);
        }
    }
    (val.to_vec(), default_ts)
}

/// How `cbt import` turns a value into a cell's timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timestamps {
    /// Every cell at this time (cbt's default, `timestamp=now`).
    Now(i64),
    /// `v@123` is `v` at 123; a value without one is at the given time
    /// (`timestamp=value-encoded`).
    ValueEncoded(i64),
}

/// The columns of a `cbt import` file: each position's family and qualifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Columns {
    /// One per column, or one for every column (`column-family=`).
    families: Vec<String>,
    single_family: bool,
    qualifiers: Vec<Vec<u8>>,
}

impl Columns {
    /// Reads the header records from `records`: the family record (unless `column_family`
    /// names the one family) and the qualifier record.
    ///
    /// # Errors
    /// cbt's `empty csv file: no column family row` or `csv file has no column qualifier
    /// row`; a parse error of either record.
    pub fn read_header(
        records: &mut impl Iterator<Item = Result<Vec<Vec<u8>>, String>>,
        column_family: Option<&str>,
    ) -> Result<Columns, String> {
        let (families, single_family) = match column_family {
            Some(f) => (Vec::from([f.to_string()]), true),
            None => {
                let row = records
                    .next()
                    .transpose()?
                    .ok_or("empty csv file: no column family row")?;
                let mut current = String::new();
                let families = row
                    .into_iter()
                    .skip(1)
                    .map(|f| {
                        if !f.is_empty() {
                            current = String::from_utf8_lossy(&f).into_owned();
                        }
                        current.clone()
                    })
                    .collect();
                (families, false)
            }
        };
        let qualifiers = records
            .next()
            .transpose()?
            .ok_or("csv file has no column qualifier row")?
            .into_iter()
            .skip(1)
            .collect();
        Ok(Columns {
            families,
            single_family,
            qualifiers,
        })
    }

    /// The family of column `i` (0 is the first value after the row key); past the family
    /// record's end, its last family.
    pub fn family(&self, i: usize) -> &str {
        if self.single_family {
            &self.families[0]
        } else {
            self.families
                .get(i)
                .or(self.families.last())
                .map_or("", String::as_str)
        }
    }

    /// The qualifier of column `i`; past the qualifier record's end, the empty qualifier.
    pub fn qualifier(&self, i: usize) -> &[u8] {
        self.qualifiers.get(i).map_or(&[], Vec::as_slice)
    }

    /// The SetCell mutations of one data record (the row key first), as cbt makes them: one
    /// per non-blank value.
    pub fn mutations(&self, record: &[Vec<u8>], timestamps: Timestamps) -> Vec<Mutation> {
        record
            .iter()
            .skip(1)
            .enumerate()
            .filter(|(_, v)| !v.is_empty())
            .map(|(i, v)| {
                let (value, ts) = match timestamps {
                    Timestamps::ValueEncoded(default) => split_timestamp(v, default),
                    Timestamps::Now(now) => (v.clone(), now),
                };
                Mutation::set_cell(self.family(i), self.qualifier(i).to_vec(), ts, value)
            })
            .collect()
    }
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

    #[test]
    fn bytes_that_are_not_utf8_pass_through() {
        let input: &[u8] = b"\xff\x00k,\"v\xfe\"\n";
        let recs: Vec<_> = Reader::new(input).collect::<Result<_, _>>().unwrap();
        assert_eq!(recs, vec![vec![b"\xff\x00k".to_vec(), b"v\xfe".to_vec()]]);
    }

    #[test]
    fn written_records_read_back_byte_for_byte() {
        let fields: Vec<Vec<u8>> = vec![
            b"plain".to_vec(),
            b"".to_vec(),
            b"a,b".to_vec(),
            b"say \"hi\"".to_vec(),
            b"two\nlines\r\n".to_vec(),
            b" leading space".to_vec(),
            b"\\.".to_vec(),
            b"\xff\x01binary".to_vec(),
            b"@1000".to_vec(),
        ];
        let mut out = Vec::new();
        write_record(&mut out, &fields);
        write_record(&mut out, &[b"k".as_slice()]);
        assert!(out.starts_with(b"plain,,\"a,b\",\"say \"\"hi\"\"\","));
        let back: Vec<_> = Reader::new(out.as_slice())
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(back, vec![fields, vec![b"k".to_vec()]]);
    }

    #[test]
    fn header_records_name_each_column() {
        let mut recs = Reader::new(&b",cf1,,cf2\n,a,b,c,d\nr,1,,3@5,4\n"[..]);
        let columns = Columns::read_header(&mut recs, None).unwrap();
        assert_eq!(
            (0..4).map(|i| columns.family(i)).collect::<Vec<_>>(),
            ["cf1", "cf1", "cf2", "cf2"]
        );
        let row = recs.next().unwrap().unwrap();
        assert_eq!(
            columns.mutations(&row, Timestamps::ValueEncoded(9)),
            vec![
                Mutation::set_cell("cf1", b"a".to_vec(), 9, b"1".to_vec()),
                Mutation::set_cell("cf2", b"c".to_vec(), 5, b"3".to_vec()),
                Mutation::set_cell("cf2", b"d".to_vec(), 9, b"4".to_vec()),
            ]
        );
        let mut recs = Reader::new(&b""[..]);
        assert_eq!(
            Columns::read_header(&mut recs, None).unwrap_err(),
            "empty csv file: no column family row"
        );
        let mut recs = Reader::new(&b",q\n"[..]);
        let one = Columns::read_header(&mut recs, Some("f")).unwrap();
        assert_eq!((one.family(3), one.qualifier(0)), ("f", b"q".as_slice()));
    }
}
