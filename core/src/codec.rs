//! Layer 3, codecs: the byte encodings of model values that reach disk.
//!
//! Contract: encoders are total; decoders of bytes from disk never panic and answer
//! `Corruption` (`Code::DataLoss`) for anything malformed. The formats are specified in
//! docs/format/. Imports: `model`, `platform` and the foundation.

pub mod encoding;
pub mod row_key_schema;
pub mod values;
