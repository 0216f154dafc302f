//! Data API request messages the server decodes itself, because the current
//! `google/bigtable/v2` definitions have fields that googleapis-tonic-google-bigtable-v2 0.39
//! (the newest on crates.io) lacks, and prost silently drops fields a type does not declare:
//! - `RowFilter.value_bitmask_filter` (field 20, a `ValueBitmask { bytes mask = 1 }`), so
//!   `ReadRowsRequest.filter` and `CheckAndMutateRowRequest.predicate_filter` are decoded as
//!   this module's [`RowFilter`];
//! - `SampleRowKeysRequest.row_range` (field 6, a `RowRange`).
//!
//! Each message here has the same field numbers and types as the published definition; nested
//! messages that did not change (row sets, ranges, mutations) are the crate's. The server
//! only decodes these (clients never receive them), and the tests encode requests with the
//! crate's types or with these, so both encodings stay wire-compatible by construction.

use crate::stubs::v2;

/// `google.bigtable.v2.RowFilter`, with `value_bitmask_filter`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RowFilter {
    /// Which filter this is; `None` when no kind is set (or the kind is unknown).
    #[prost(
        oneof = "row_filter::Filter",
        tags = "1, 2, 3, 16, 17, 18, 4, 14, 5, 6, 7, 8, 9, 15, 10, 11, 12, 13, 19, 20"
    )]
    pub filter: Option<row_filter::Filter>,
}

/// The parts of [`RowFilter`].
pub mod row_filter {
    use crate::stubs::v2;

    /// `RowFilter.Chain`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Chain {
        /// The members, applied in order.
        #[prost(message, repeated, tag = "1")]
        pub filters: Vec<super::RowFilter>,
    }

    /// `RowFilter.Interleave`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Interleave {
        /// The members, each applied to the input.
        #[prost(message, repeated, tag = "1")]
        pub filters: Vec<super::RowFilter>,
    }

    /// `RowFilter.Condition`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Condition {
        /// Decides the branch.
        #[prost(message, optional, boxed, tag = "1")]
        pub predicate_filter: Option<Box<super::RowFilter>>,
        /// Applied when the predicate yields a cell.
        #[prost(message, optional, boxed, tag = "2")]
        pub true_filter: Option<Box<super::RowFilter>>,
        /// Applied otherwise.
        #[prost(message, optional, boxed, tag = "3")]
        pub false_filter: Option<Box<super::RowFilter>>,
    }

    /// `google.bigtable.v2.ValueBitmask`.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ValueBitmask {
        /// A cell matches when `value & mask == mask`, with the value as long as the mask.
        #[prost(bytes = "vec", tag = "1")]
        pub mask: Vec<u8>,
    }

    /// The `filter` oneof.
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Filter {
        /// `chain`.
        #[prost(message, tag = "1")]
        Chain(Chain),
        /// `interleave`.
        #[prost(message, tag = "2")]
        Interleave(Interleave),
        /// `condition`.
        #[prost(message, tag = "3")]
        Condition(Box<Condition>),
        /// `sink`.
        #[prost(bool, tag = "16")]
        Sink(bool),
        /// `pass_all_filter`.
        #[prost(bool, tag = "17")]
        PassAllFilter(bool),
        /// `block_all_filter`.
        #[prost(bool, tag = "18")]
        BlockAllFilter(bool),
        /// `row_key_regex_filter`.
        #[prost(bytes = "vec", tag = "4")]
        RowKeyRegexFilter(Vec<u8>),
        /// `row_sample_filter`.
        #[prost(double, tag = "14")]
        RowSampleFilter(f64),
        /// `family_name_regex_filter`.
        #[prost(string, tag = "5")]
        FamilyNameRegexFilter(String),
        /// `column_qualifier_regex_filter`.
        #[prost(bytes = "vec", tag = "6")]
        ColumnQualifierRegexFilter(Vec<u8>),
        /// `column_range_filter`.
        #[prost(message, tag = "7")]
        ColumnRangeFilter(v2::ColumnRange),
        /// `timestamp_range_filter`.
        #[prost(message, tag = "8")]
        TimestampRangeFilter(v2::TimestampRange),
        /// `value_regex_filter`.
        #[prost(bytes = "vec", tag = "9")]
        ValueRegexFilter(Vec<u8>),
        /// `value_range_filter`.
        #[prost(message, tag = "15")]
        ValueRangeFilter(v2::ValueRange),
        /// `cells_per_row_offset_filter`.
        #[prost(int32, tag = "10")]
        CellsPerRowOffsetFilter(i32),
        /// `cells_per_row_limit_filter`.
        #[prost(int32, tag = "11")]
        CellsPerRowLimitFilter(i32),
        /// `cells_per_column_limit_filter`.
        #[prost(int32, tag = "12")]
        CellsPerColumnLimitFilter(i32),
        /// `strip_value_transformer`.
        #[prost(bool, tag = "13")]
        StripValueTransformer(bool),
        /// `apply_label_transformer`.
        #[prost(string, tag = "19")]
        ApplyLabelTransformer(String),
        /// `value_bitmask_filter`.
        #[prost(message, tag = "20")]
        ValueBitmaskFilter(ValueBitmask),
    }
}

/// `google.bigtable.v2.ReadRowsRequest`, with this module's [`RowFilter`].
#[derive(Clone, PartialEq, prost::Message)]
pub struct ReadRowsRequest {
    /// The table, `projects/P/instances/I/tables/T`.
    #[prost(string, tag = "1")]
    pub table_name: String,
    /// Or an authorized view of it.
    #[prost(string, tag = "9")]
    pub authorized_view_name: String,
    /// Or a materialized view.
    #[prost(string, tag = "11")]
    pub materialized_view_name: String,
    /// Routing in Cloud Bigtable; ignored here.
    #[prost(string, tag = "5")]
    pub app_profile_id: String,
    /// The rows to read; unset reads all.
    #[prost(message, optional, tag = "2")]
    pub rows: Option<v2::RowSet>,
    /// What to keep of each row; unset keeps everything.
    #[prost(message, optional, tag = "3")]
    pub filter: Option<RowFilter>,
    /// Most rows to return; 0 for no limit.
    #[prost(int64, tag = "4")]
    pub rows_limit: i64,
    /// A `ReadRowsRequest.RequestStatsView`.
    #[prost(int32, tag = "6")]
    pub request_stats_view: i32,
    /// Rows in descending key order.
    #[prost(bool, tag = "7")]
    pub reversed: bool,
}

/// `google.bigtable.v2.CheckAndMutateRowRequest`, with this module's [`RowFilter`].
#[derive(Clone, PartialEq, prost::Message)]
pub struct CheckAndMutateRowRequest {
    /// The table.
    #[prost(string, tag = "1")]
    pub table_name: String,
    /// Or an authorized view of it.
    #[prost(string, tag = "9")]
    pub authorized_view_name: String,
    /// Routing in Cloud Bigtable; ignored here.
    #[prost(string, tag = "7")]
    pub app_profile_id: String,
    /// The row.
    #[prost(bytes = "vec", tag = "2")]
    pub row_key: Vec<u8>,
    /// The condition; unset means "the row has any cell".
    #[prost(message, optional, tag = "6")]
    pub predicate_filter: Option<RowFilter>,
    /// Applied when the predicate yields a cell.
    #[prost(message, repeated, tag = "4")]
    pub true_mutations: Vec<v2::Mutation>,
    /// Applied otherwise.
    #[prost(message, repeated, tag = "5")]
    pub false_mutations: Vec<v2::Mutation>,
}

/// `google.bigtable.v2.SampleRowKeysRequest`, with `row_range`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SampleRowKeysRequest {
    /// The table.
    #[prost(string, tag = "1")]
    pub table_name: String,
    /// Or an authorized view of it.
    #[prost(string, tag = "4")]
    pub authorized_view_name: String,
    /// Or a materialized view.
    #[prost(string, tag = "5")]
    pub materialized_view_name: String,
    /// Routing in Cloud Bigtable; ignored here.
    #[prost(string, tag = "2")]
    pub app_profile_id: String,
    /// Only samples inside this range; unset samples the whole table.
    #[prost(message, optional, tag = "6")]
    pub row_range: Option<v2::RowRange>,
}
