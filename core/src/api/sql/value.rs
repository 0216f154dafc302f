//! SQL types and values, their total order (for GROUP BY, DISTINCT and ORDER BY) and SQL
//! equality (for `=`, which is unknown when either side is NULL).
//!
//! Invariants: a [`SqlValue`] never says its own type (NULL belongs to every type); the planner
//! works out every expression's [`SqlType`] and the executor trusts it. A MAP's entries are
//! sorted by key and keys are unique; a STRUCT's fields keep their declared order.

use alloc::boxed::Box;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::cmp::Ordering;
use core::fmt;

/// A SQL type, as Bigtable's `google.bigtable.v2.Type` names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlType {
    /// Byte strings.
    Bytes,
    /// UTF-8 strings.
    String,
    /// 64-bit signed integers.
    Int64,
    /// 32-bit floats.
    Float32,
    /// 64-bit floats.
    Float64,
    /// Booleans.
    Bool,
    /// Instants with nanosecond precision (Bigtable's SQL computes in microseconds).
    Timestamp,
    /// Calendar dates.
    Date,
    /// Arrays of one element type.
    Array(Box<SqlType>),
    /// Maps from one key type to one value type.
    Map(Box<SqlType>, Box<SqlType>),
    /// Structs: named (or unnamed: empty name) fields in order.
    Struct(Vec<(String, SqlType)>),
}

impl SqlType {
    /// The scalar types by their GoogleSQL names, upper case: the one list the SQL parser and
    /// every front-end's type tags read names with (ARRAY, MAP and STRUCT take parameters).
    pub const SCALARS: [(&'static str, SqlType); 8] = [
        ("BYTES", SqlType::Bytes),
        ("STRING", SqlType::String),
        ("INT64", SqlType::Int64),
        ("FLOAT32", SqlType::Float32),
        ("FLOAT64", SqlType::Float64),
        ("BOOL", SqlType::Bool),
        ("TIMESTAMP", SqlType::Timestamp),
        ("DATE", SqlType::Date),
    ];

    /// The scalar type named `name` (upper case, as [`SqlType::SCALARS`]), if any.
    pub fn scalar_named(name: &str) -> Option<SqlType> {
        Self::SCALARS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.clone())
    }

    /// An ARRAY of `t`.
    pub fn array(t: SqlType) -> SqlType {
        SqlType::Array(Box::new(t))
    }

    /// A MAP from `k` to `v`.
    pub fn map(k: SqlType, v: SqlType) -> SqlType {
        SqlType::Map(Box::new(k), Box::new(v))
    }

    /// Whether the type is INT64, FLOAT32 or FLOAT64.
    pub fn is_numeric(&self) -> bool {
        matches!(self, SqlType::Int64 | SqlType::Float32 | SqlType::Float64)
    }

    /// Whether values of the type can be compared with `<` (GoogleSQL orders every type but
    /// ARRAY, MAP and STRUCT).
    pub fn is_orderable(&self) -> bool {
        !matches!(
            self,
            SqlType::Map(..) | SqlType::Struct(_) | SqlType::Array(_)
        )
    }

    /// Whether values of the type can be grouped on or compared with `=`.
    pub fn is_groupable(&self) -> bool {
        match self {
            SqlType::Map(..) => false,
            SqlType::Array(e) => e.is_groupable(),
            SqlType::Struct(fields) => fields.iter().all(|(_, t)| t.is_groupable()),
            _ => true,
        }
    }
}

impl fmt::Display for SqlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SqlType::Bytes => f.write_str("BYTES"),
            SqlType::String => f.write_str("STRING"),
            SqlType::Int64 => f.write_str("INT64"),
            SqlType::Float32 => f.write_str("FLOAT32"),
            SqlType::Float64 => f.write_str("FLOAT64"),
            SqlType::Bool => f.write_str("BOOL"),
            SqlType::Timestamp => f.write_str("TIMESTAMP"),
            SqlType::Date => f.write_str("DATE"),
            SqlType::Array(e) => write!(f, "ARRAY<{e}>"),
            SqlType::Map(k, v) => write!(f, "MAP<{k}, {v}>"),
            SqlType::Struct(fields) => {
                f.write_str("STRUCT<")?;
                for (i, (name, t)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    if name.is_empty() {
                        write!(f, "{t}")?;
                    } else {
                        write!(f, "{name} {t}")?;
                    }
                }
                f.write_str(">")
            }
        }
    }
}

/// A SQL value.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    /// NULL, of any type.
    Null,
    /// A BYTES value.
    Bytes(Vec<u8>),
    /// A STRING value.
    String(String),
    /// An INT64 value.
    Int64(i64),
    /// A FLOAT32 value.
    Float32(f32),
    /// A FLOAT64 value.
    Float64(f64),
    /// A BOOL value.
    Bool(bool),
    /// A TIMESTAMP: seconds since the Unix epoch and nanoseconds within the second.
    Timestamp {
        /// Whole seconds.
        seconds: i64,
        /// Nanoseconds, 0 to 999,999,999.
        nanos: i32,
    },
    /// A DATE.
    Date {
        /// The year, 1 to 9999.
        year: i32,
        /// The month, 1 to 12.
        month: i32,
        /// The day of the month.
        day: i32,
    },
    /// An ARRAY's elements.
    Array(Vec<SqlValue>),
    /// A MAP's entries, sorted by key.
    Map(Vec<(SqlValue, SqlValue)>),
    /// A STRUCT's field values, in the order of its type's fields.
    Struct(Vec<SqlValue>),
}

impl SqlValue {
    /// Whether the value can be of type `ty` (NULL can be of any).
    pub fn fits(&self, ty: &SqlType) -> bool {
        match (self, ty) {
            (SqlValue::Null, _)
            | (SqlValue::Bytes(_), SqlType::Bytes)
            | (SqlValue::String(_), SqlType::String)
            | (SqlValue::Int64(_), SqlType::Int64)
            | (SqlValue::Float32(_), SqlType::Float32)
            | (SqlValue::Float64(_), SqlType::Float64)
            | (SqlValue::Bool(_), SqlType::Bool)
            | (SqlValue::Timestamp { .. }, SqlType::Timestamp)
            | (SqlValue::Date { .. }, SqlType::Date) => true,
            (SqlValue::Array(items), SqlType::Array(t)) => items.iter().all(|v| v.fits(t)),
            (SqlValue::Map(entries), SqlType::Map(k, v)) => {
                entries.iter().all(|(a, b)| a.fits(k) && b.fits(v))
            }
            (SqlValue::Struct(values), SqlType::Struct(fields)) => {
                values.len() == fields.len()
                    && values.iter().zip(fields).all(|(v, (_, t))| v.fits(t))
            }
            _ => false,
        }
    }

    /// Whether the value is NULL.
    pub fn is_null(&self) -> bool {
        matches!(self, SqlValue::Null)
    }

    /// A TIMESTAMP from microseconds since the epoch.
    pub fn timestamp_micros(micros: i64) -> SqlValue {
        SqlValue::Timestamp {
            seconds: micros.div_euclid(1_000_000),
            nanos: (micros.rem_euclid(1_000_000) * 1000) as i32,
        }
    }

    /// A TIMESTAMP's microseconds since the epoch (nanoseconds below a microsecond dropped).
    pub fn as_micros(&self) -> Option<i64> {
        match self {
            SqlValue::Timestamp { seconds, nanos } => seconds
                .checked_mul(1_000_000)
                .and_then(|s| s.checked_add(i64::from(*nanos) / 1000)),
            _ => None,
        }
    }

    /// The number as an f64 (INT64 and the floats), for arithmetic across numeric types.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            SqlValue::Int64(i) => Some(*i as f64),
            SqlValue::Float32(f) => Some(f64::from(*f)),
            SqlValue::Float64(f) => Some(*f),
            _ => None,
        }
    }

    /// The bytes of a BYTES value, or the UTF-8 bytes of a STRING (literal coercion).
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            SqlValue::Bytes(b) => Some(b),
            SqlValue::String(s) => Some(s.as_bytes()),
            _ => None,
        }
    }

    fn rank(&self) -> u8 {
        match self {
            SqlValue::Null => 0,
            SqlValue::Bool(_) => 1,
            SqlValue::Int64(_) | SqlValue::Float32(_) | SqlValue::Float64(_) => 2,
            SqlValue::String(_) | SqlValue::Bytes(_) => 3,
            SqlValue::Date { .. } => 4,
            SqlValue::Timestamp { .. } => 5,
            SqlValue::Array(_) => 6,
            SqlValue::Struct(_) => 7,
            SqlValue::Map(_) => 8,
        }
    }

    /// A total order used for sorting, grouping and DISTINCT: NULL first, then NaN, then the
    /// other numbers (GoogleSQL's order for ORDER BY); values of one type compare by value.
    pub fn total_cmp(&self, other: &SqlValue) -> Ordering {
        use SqlValue as V;
        match (self, other) {
            (V::Int64(a), V::Int64(b)) => a.cmp(b),
            (a, b) if a.rank() == 2 && b.rank() == 2 => {
                let (x, y) = (a.as_f64().unwrap_or(0.0), b.as_f64().unwrap_or(0.0));
                match (x.is_nan(), y.is_nan()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    // -0.0 and 0.0 are equal in SQL.
                    _ => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
                }
            }
            (V::Bool(a), V::Bool(b)) => a.cmp(b),
            (a, b) if a.rank() == 3 && b.rank() == 3 => a.as_bytes().cmp(&b.as_bytes()),
            (V::Date { .. }, V::Date { .. }) => date_key(self).cmp(&date_key(other)),
            (
                V::Timestamp { seconds, nanos },
                V::Timestamp {
                    seconds: s2,
                    nanos: n2,
                },
            ) => (seconds, nanos).cmp(&(s2, n2)),
            (V::Array(a), V::Array(b)) | (V::Struct(a), V::Struct(b)) => {
                for (x, y) in a.iter().zip(b) {
                    let o = x.total_cmp(y);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.len().cmp(&b.len())
            }
            (V::Map(a), V::Map(b)) => {
                for ((k1, v1), (k2, v2)) in a.iter().zip(b) {
                    let o = k1.total_cmp(k2).then_with(|| v1.total_cmp(v2));
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.len().cmp(&b.len())
            }
            _ => self.rank().cmp(&other.rank()),
        }
    }

    /// SQL `=`: `None` (unknown) when either side is NULL, or an element of an array is;
    /// NaN equals nothing, not even NaN.
    pub fn sql_eq(&self, other: &SqlValue) -> Option<bool> {
        match (self, other) {
            (SqlValue::Null, _) | (_, SqlValue::Null) => None,
            (SqlValue::Array(a), SqlValue::Array(b))
            | (SqlValue::Struct(a), SqlValue::Struct(b)) => {
                if a.len() != b.len() {
                    return Some(false);
                }
                let mut unknown = false;
                for (x, y) in a.iter().zip(b) {
                    match x.sql_eq(y) {
                        Some(false) => return Some(false),
                        None => unknown = true,
                        Some(true) => {}
                    }
                }
                if unknown {
                    None
                } else {
                    Some(true)
                }
            }
            (a, b) => {
                if a.as_f64().is_some_and(f64::is_nan) || b.as_f64().is_some_and(f64::is_nan) {
                    return Some(false);
                }
                Some(a.total_cmp(b) == Ordering::Equal)
            }
        }
    }

    /// SQL `<` and kin: the order of two non-NULL orderable values, `None` when either is NULL
    /// or NaN (every comparison with NaN is false).
    pub fn sql_cmp(&self, other: &SqlValue) -> Option<Ordering> {
        if self.is_null() || other.is_null() {
            return None;
        }
        if self.as_f64().is_some_and(f64::is_nan) || other.as_f64().is_some_and(f64::is_nan) {
            return None;
        }
        Some(self.total_cmp(other))
    }
}

fn date_key(v: &SqlValue) -> (i32, i32, i32) {
    match v {
        SqlValue::Date { year, month, day } => (*year, *month, *day),
        _ => (0, 0, 0),
    }
}

/// A value wrapped to be a key of a BTreeMap (GROUP BY, DISTINCT): ordered by
/// [`SqlValue::total_cmp`], so NULLs are one group and so are NaNs.
#[derive(Debug, Clone)]
pub(crate) struct Key(pub Vec<SqlValue>);

impl PartialEq for Key {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Key {}
impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        for (a, b) in self.0.iter().zip(&other.0) {
            let o = a.total_cmp(b);
            if o != Ordering::Equal {
                return o;
            }
        }
        self.0.len().cmp(&other.0.len())
    }
}

/// A value as text, for CAST(... AS STRING) and error messages: GoogleSQL's literal-free
/// rendering (strings bare, numbers in shortest round-trip form).
pub(crate) fn to_text(v: &SqlValue) -> String {
    match v {
        SqlValue::Null => "NULL".into(),
        SqlValue::Bool(b) => (if *b { "true" } else { "false" }).into(),
        SqlValue::Int64(i) => format!("{i}"),
        SqlValue::Float32(f) => float_text(f64::from(*f), Some(*f)),
        SqlValue::Float64(f) => float_text(*f, None),
        SqlValue::String(s) => s.clone(),
        SqlValue::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        SqlValue::Date { year, month, day } => format!("{year:04}-{month:02}-{day:02}"),
        SqlValue::Timestamp { .. } => v
            .as_micros()
            .map(crate::api::sql::calendar::timestamp_text)
            .unwrap_or_default(),
        SqlValue::Array(items) => {
            let parts: Vec<String> = items.iter().map(to_text).collect();
            format!("[{}]", parts.join(", "))
        }
        SqlValue::Struct(items) => {
            let parts: Vec<String> = items.iter().map(to_text).collect();
            format!("({})", parts.join(", "))
        }
        SqlValue::Map(entries) => {
            let parts: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", to_text(k), to_text(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}

fn float_text(f: f64, single: Option<f32>) -> String {
    if f.is_nan() {
        "nan".into()
    } else if f.is_infinite() {
        (if f > 0.0 { "inf" } else { "-inf" }).into()
    } else if let Some(s) = single {
        format!("{s}")
    } else {
        format!("{f}")
    }
}

#[cfg(test)]
mod tests {
    use super::SqlType;
    use alloc::string::ToString;

    #[test]
    fn each_scalar_is_named_as_it_prints() {
        for (name, ty) in SqlType::SCALARS {
            assert_eq!(ty.to_string(), name);
            assert_eq!(SqlType::scalar_named(name), Some(ty));
        }
        assert_eq!(SqlType::scalar_named("ARRAY"), None);
        assert_eq!(SqlType::scalar_named("int64"), None);
    }
}
