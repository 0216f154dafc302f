//! Layer 1, the platform: everything the engine needs from the machine, behind narrow traits.
//!
//! Contract: nothing here knows Bigtable. Persistent bytes reach the engine only through
//! [`storage::Storage`], time only through [`clock::Clock`], randomness only through
//! [`random::RandomSource`]; each has an in-memory implementation so every test runs without
//! a disk, and the std implementations sit behind the `std` feature. Imports: the crate's
//! foundation (`error`, `limits`) only.

pub(crate) mod bytes;
pub mod calendar;
pub mod clock;
pub mod random;
pub mod storage;
