//! Map, array and vector functions, and NULLIF.
//!
//! Bigtable models a column family as a MAP from qualifier to value (map functions page):
//! MAP_KEYS, MAP_VALUES and MAP_ENTRIES list it in key order (qualifiers sort bytewise),
//! MAP_CONTAINS_KEY tests a qualifier. Vector functions (vector functions page) take two
//! ARRAY<FLOAT32|FLOAT64> of equal length: COSINE_DISTANCE is `1 - cos(angle)` and is an
//! error for a zero vector, EUCLIDEAN_DISTANCE the L2 distance, DOT_PRODUCT the inner
//! product; a NULL element or different lengths are errors. TO_VECTOR32/64 read a BYTES
//! value as big-endian IEEE 754 floats (4 or 8 bytes each), Bigtable's way of storing
//! embeddings in cells.

use alloc::format;
use alloc::vec::Vec;

use crate::api::sql::errors::{bad, out_of_range};
use crate::api::sql::value::SqlValue;
use crate::Result;

/// The most elements a GENERATE_ARRAY, GENERATE_DATE_ARRAY or GENERATE_TIMESTAMP_ARRAY call
/// returns: our bound (the reference names none), so one call cannot exhaust memory.
pub const GENERATE_LIMIT: usize = 1 << 16;

fn vector(name: &str, v: &SqlValue) -> Result<Vec<f64>> {
    let SqlValue::Array(items) = v else {
        return Err(bad(format!(
            "{name} takes ARRAY<FLOAT64> or ARRAY<FLOAT32>"
        )));
    };
    items
        .iter()
        .map(|x| match x {
            SqlValue::Null => Err(out_of_range(format!("{name}: a vector has a NULL element"))),
            other => other
                .as_f64()
                .ok_or_else(|| bad(format!("{name}: vectors hold numbers"))),
        })
        .collect()
}

fn pair(name: &str, a: &SqlValue, b: &SqlValue) -> Result<(Vec<f64>, Vec<f64>)> {
    let (x, y) = (vector(name, a)?, vector(name, b)?);
    if x.len() != y.len() {
        return Err(out_of_range(format!(
            "{name}: the vectors have different lengths ({} and {})",
            x.len(),
            y.len()
        )));
    }
    Ok((x, y))
}

/// Evaluates a map, array or vector function; `None` if `name` is not one.
///
/// # Errors
/// OUT_OF_RANGE for vectors of different lengths, zero vectors and NULL elements.
pub fn call(name: &str, a: &[SqlValue]) -> Result<Option<SqlValue>> {
    use SqlValue as V;
    let arg = |i: usize| a.get(i).unwrap_or(&V::Null);
    let v = match name {
        "NULLIF" => {
            if arg(0).sql_eq(arg(1)) == Some(true) {
                V::Null
            } else {
                arg(0).clone()
            }
        }
        "MAP_KEYS" | "MAP_VALUES" | "MAP_ENTRIES" | "MAP_EMPTY" | "MAP_CONTAINS_KEY"
            if arg(0).is_null() =>
        {
            V::Null
        }
        "MAP_KEYS" | "MAP_VALUES" | "MAP_ENTRIES" | "MAP_EMPTY" => {
            let V::Map(entries) = arg(0) else {
                return Err(bad(format!("{name} takes a MAP")));
            };
            match name {
                "MAP_KEYS" => V::Array(entries.iter().map(|(k, _)| k.clone()).collect()),
                "MAP_VALUES" => V::Array(entries.iter().map(|(_, v)| v.clone()).collect()),
                "MAP_EMPTY" => V::Bool(entries.is_empty()),
                _ => V::Array(
                    entries
                        .iter()
                        .map(|(k, v)| V::Struct(alloc::vec![k.clone(), v.clone()]))
                        .collect(),
                ),
            }
        }
        "MAP_CONTAINS_KEY" => {
            let V::Map(entries) = arg(0) else {
                return Err(bad("MAP_CONTAINS_KEY takes a MAP"));
            };
            if arg(1).is_null() {
                V::Null
            } else {
                V::Bool(entries.iter().any(|(k, _)| k.sql_eq(arg(1)) == Some(true)))
            }
        }
        "ARRAY_LENGTH" => match arg(0) {
            V::Null => V::Null,
            V::Array(items) => V::Int64(items.len() as i64),
            _ => return Err(bad("ARRAY_LENGTH takes an ARRAY")),
        },
        "ARRAY_CONCAT" => {
            let mut out = Vec::new();
            for x in a {
                match x {
                    V::Null => return Ok(Some(V::Null)),
                    V::Array(items) => out.extend(items.iter().cloned()),
                    _ => return Err(bad("ARRAY_CONCAT takes ARRAYs")),
                }
            }
            V::Array(out)
        }
        "ARRAY_REVERSE" => match arg(0) {
            V::Array(items) => V::Array(items.iter().rev().cloned().collect()),
            _ => V::Null,
        },
        "ARRAY_FIRST" | "ARRAY_LAST" => match arg(0) {
            V::Array(items) => {
                let x = if name == "ARRAY_FIRST" {
                    items.first()
                } else {
                    items.last()
                };
                x.cloned()
                    .ok_or_else(|| out_of_range(format!("{name} of an empty array")))?
            }
            _ => V::Null,
        },
        "ARRAY_INCLUDES" => match arg(0) {
            V::Array(items) if !arg(1).is_null() => {
                V::Bool(items.iter().any(|x| x.sql_eq(arg(1)) == Some(true)))
            }
            _ => V::Null,
        },
        // A search value is found when an element equals it; a NULL search value equals
        // nothing (our reading: the page defines equality, and NULL = x is never TRUE).
        "ARRAY_INCLUDES_ALL" | "ARRAY_INCLUDES_ANY" => match (arg(0), arg(1)) {
            (V::Array(items), V::Array(search)) => {
                let found = |s: &V| items.iter().any(|x| x.sql_eq(s) == Some(true));
                V::Bool(if name == "ARRAY_INCLUDES_ALL" {
                    search.iter().all(found)
                } else {
                    search.iter().any(found)
                })
            }
            _ => V::Null,
        },
        // DISTINCT's equality: NULLs are equal to each other (and NaNs to NaNs).
        "ARRAY_IS_DISTINCT" => match arg(0) {
            V::Array(items) => {
                let mut sorted: Vec<&V> = items.iter().collect();
                sorted.sort_by(|x, y| x.total_cmp(y));
                V::Bool(sorted.windows(2).all(|w| w[0].total_cmp(w[1]).is_ne()))
            }
            _ => V::Null,
        },
        "ARRAY_SLICE" => match (arg(0), arg(1), arg(2)) {
            (V::Array(items), V::Int64(start), V::Int64(end)) => {
                let len = items.len() as i64;
                // A negative offset counts from the end; out-of-bounds offsets are clamped.
                let place = |o: i64| if o < 0 { len.saturating_add(o) } else { o };
                let (s, e) = (place(*start).max(0), place(*end).min(len - 1));
                if items.is_empty() || s > e {
                    V::Array(Vec::new())
                } else {
                    V::Array(items[s as usize..=e as usize].to_vec())
                }
            }
            _ => V::Null,
        },
        "ARRAY_LAST_N" => match (arg(0), arg(1)) {
            (V::Array(items), V::Int64(n)) => {
                if *n < 0 {
                    return Err(out_of_range(format!("ARRAY_LAST_N: n is negative ({n})")));
                }
                let keep = (*n).min(items.len() as i64) as usize;
                V::Array(items[items.len() - keep..].to_vec())
            }
            _ => V::Null,
        },
        "ARRAY_OFFSET" | "ARRAY_OFFSETS" => {
            let (V::Array(items), target) = (arg(0), arg(1)) else {
                return Ok(Some(V::Null));
            };
            if target.is_null() {
                return Ok(Some(V::Null));
            }
            let hits = items
                .iter()
                .enumerate()
                .filter(|(_, x)| x.sql_eq(target) == Some(true))
                .map(|(i, _)| i as i64);
            if name == "ARRAY_OFFSETS" {
                V::Array(hits.map(V::Int64).collect())
            } else {
                let last = match a.get(2) {
                    None => false,
                    Some(V::String(m)) if m.eq_ignore_ascii_case("FIRST") => false,
                    Some(V::String(m)) if m.eq_ignore_ascii_case("LAST") => true,
                    Some(V::Null) => return Ok(Some(V::Null)),
                    Some(_) => {
                        return Err(bad("ARRAY_OFFSET: the mode is 'FIRST' or 'LAST'"));
                    }
                };
                let mut hits = hits;
                let hit = if last { hits.next_back() } else { hits.next() };
                hit.map_or(V::Null, V::Int64)
            }
        }
        "ARRAY_TO_STRING" => {
            let (V::Array(items), Some(sep)) = (arg(0), arg(1).as_bytes()) else {
                return Ok(Some(V::Null));
            };
            let mut out = Vec::new();
            let mut first = true;
            let mut bytes = matches!(arg(1), V::Bytes(_));
            for x in items {
                let piece = match x {
                    V::Null => match a.get(2).and_then(SqlValue::as_bytes) {
                        Some(n) => n.to_vec(),
                        None => continue,
                    },
                    other => {
                        bytes |= matches!(other, V::Bytes(_));
                        other.as_bytes().unwrap_or_default().to_vec()
                    }
                };
                if !first {
                    out.extend_from_slice(sep);
                }
                first = false;
                out.extend(piece);
            }
            if bytes {
                V::Bytes(out)
            } else {
                V::String(alloc::string::String::from_utf8(out).unwrap_or_default())
            }
        }
        "GENERATE_ARRAY" => {
            let (V::Int64(lo), V::Int64(hi)) = (arg(0), arg(1)) else {
                return Ok(Some(V::Null));
            };
            let step = match a.get(2) {
                Some(V::Int64(s)) => *s,
                Some(_) => return Ok(Some(V::Null)),
                None => 1,
            };
            if step == 0 {
                return Err(out_of_range("GENERATE_ARRAY: the step must not be 0"));
            }
            let mut out = Vec::new();
            let mut x = *lo;
            while (step > 0 && x <= *hi) || (step < 0 && x >= *hi) {
                if out.len() >= GENERATE_LIMIT {
                    return Err(out_of_range("GENERATE_ARRAY: too many elements"));
                }
                out.push(V::Int64(x));
                match x.checked_add(step) {
                    Some(n) => x = n,
                    None => break,
                }
            }
            V::Array(out)
        }
        "COSINE_DISTANCE" | "EUCLIDEAN_DISTANCE" | "DOT_PRODUCT" => {
            if arg(0).is_null() || arg(1).is_null() {
                return Ok(Some(V::Null));
            }
            let (x, y) = pair(name, arg(0), arg(1))?;
            let dot: f64 = x.iter().zip(&y).map(|(p, q)| p * q).sum();
            V::Float64(match name {
                "DOT_PRODUCT" => dot,
                "EUCLIDEAN_DISTANCE" => {
                    libm::sqrt(x.iter().zip(&y).map(|(p, q)| (p - q) * (p - q)).sum())
                }
                _ => {
                    let nx = libm::sqrt(x.iter().map(|p| p * p).sum());
                    let ny = libm::sqrt(y.iter().map(|q| q * q).sum());
                    if nx == 0.0 || ny == 0.0 {
                        return Err(out_of_range(
                            "COSINE_DISTANCE is undefined for a zero vector",
                        ));
                    }
                    1.0 - dot / (nx * ny)
                }
            })
        }
        "TO_VECTOR32" | "TO_VECTOR64" => {
            let b = match arg(0) {
                V::Null => return Ok(Some(V::Null)),
                V::Bytes(b) => b,
                _ => return Err(bad(format!("{name} takes BYTES"))),
            };
            let width = if name == "TO_VECTOR32" { 4 } else { 8 };
            if b.len() % width != 0 {
                return Err(bad(format!(
                    "{name}: {} bytes is not a whole number of {width}-byte floats",
                    b.len()
                )));
            }
            V::Array(
                b.chunks(width)
                    .map(|c| {
                        if width == 4 {
                            V::Float32(f32::from_be_bytes([c[0], c[1], c[2], c[3]]))
                        } else {
                            let mut w = [0u8; 8];
                            w.copy_from_slice(c);
                            V::Float64(f64::from_be_bytes(w))
                        }
                    })
                    .collect(),
            )
        }
        _ => return Ok(None),
    };
    Ok(Some(v))
}
