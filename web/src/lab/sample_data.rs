//! The rows the lessons load: the bus fleet's position updates and the comments of the
//! comments lesson, generated deterministically from a tick number and a time.

use super::*;

/// The bus lesson's fleet: company, routes; each route runs six buses. Route 22 of STC runs
/// bus 173, the one the lesson looks up.
pub(super) const FLEET: &[(&str, &[u32])] =
    &[("FIRST", &[1, 22, 40]), ("STC", &[1, 2, 22, 100, 101])];

/// One position update of every bus at `ts` (update `n` moves each bus a little).
pub(super) fn bus_updates(n: i64, ts: i64) -> Vec<(Vec<u8>, Vec<Mutation>)> {
    let mut rows = Vec::new();
    for (company, routes) in FLEET {
        for route in *routes {
            for v in 0..6u32 {
                // Three-digit ids, distinct per route; STC#22's first bus is 173.
                let vehicle = 100 + (route * 7 + v * 13 + 819) % 900;
                let key = format!("{company}#{route}#{vehicle}").into_bytes();
                let lat = 53.38
                    + f64::from((route * 31 + v * 17) % 100) / 1000.0
                    + (n % 50) as f64 * 0.001;
                let lng = -1.32 - f64::from((route * 13 + v * 29) % 100) / 1000.0;
                rows.push((
                    key,
                    alloc::vec![
                        Mutation::set_cell(
                            "loc",
                            b"lat".to_vec(),
                            ts,
                            format!("{lat:.5}").into_bytes()
                        ),
                        Mutation::set_cell(
                            "loc",
                            b"lng".to_vec(),
                            ts,
                            format!("{lng:.5}").into_bytes()
                        ),
                    ],
                ));
            }
        }
    }
    rows
}

/// Comment `id` created at `created` (microseconds): its row in `comments` and its row in
/// `comment_index`.
/// A row to write: its key and mutations.
type RowWrite = (Vec<u8>, Vec<Mutation>);

pub(super) fn comment_rows(id: u32, created: i64) -> (RowWrite, RowWrite) {
    let langs = ["en", "fr", "de", "en", "es"];
    let words = [
        "Great value",
        "Stopped working after a week",
        "Does what it says",
        "Too small",
        "Would buy again",
        "Arrived late but fine",
    ];
    let product = if id % 9 == 4 { 7 } else { 42 };
    let lang = langs[(id as usize * 3 + id as usize / 7) % langs.len()];
    let rating = 1 + (id * 7 + id / 5) % 5;
    let key = format!(
        "PRODUCT#{product}/{:016}/{lang}/{rating}/COMMENT#{id:04}",
        REVERSE_BASE_MICROS - created
    )
    .into_bytes();
    let text = format!("{} ({rating}★)", words[id as usize % words.len()]);
    let main = (
        key.clone(),
        alloc::vec![
            Mutation::set_cell("c", b"text".to_vec(), created, text.into_bytes()),
            Mutation::set_cell(
                "c",
                b"user".to_vec(),
                created,
                format!("user{}", id % 17).into_bytes()
            ),
        ],
    );
    let index = (
        format!("COMMENT#{id:04}").into_bytes(),
        alloc::vec![Mutation::set_cell("ref", b"row".to_vec(), created, key)],
    );
    (main, index)
}

/// Comments the comments lesson's load adds per simulated second.
pub(super) const COMMENTS_PER_TICK: u32 = 4;
