//! `help`, as cbt answers it: `help` lists the commands (in cbt's own words and layout,
//! only those this console runs; cbt's global flags do not apply to a console and are left
//! out), and `help <command>` prints that command's usage text exactly as `cbt help
//! <command>` prints it. The texts are cbt's (cbt v1's usage strings, as `/usr/bin/cbt help`
//! prints them), kept verbatim because the point is to print the same bytes.
//!
//! Invariant: every command in [`crate::COMMANDS`] has an entry here, in the same order
//! (a unit test checks it).

/// One command's help: the line `help` lists it with, and what `help <command>` prints.
pub struct CommandHelp {
    /// The command.
    pub name: &'static str,
    /// Its line in `help`'s list (`cbt <name>` then tabs then the summary).
    pub line: &'static str,
    /// What `cbt help <name>` prints.
    pub usage: &'static str,
}

/// The help of every command the console runs, by name.
pub const HELP: &[CommandHelp] = &[
    CommandHelp {
        name: "count",
        line: "cbt count\t\t\tCount rows in a table",
        usage: r##"cbt count <table-id> [prefix=<row-key-prefix>]
"##,
    },
    CommandHelp {
        name: "createfamily",
        line: "cbt createfamily\t\tCreate a column family",
        usage: r##"cbt createfamily <table-id> <family>

    Example: cbt createfamily mobile-time-series stats_summary
"##,
    },
    CommandHelp {
        name: "createtable",
        line: "cbt createtable\t\t\tCreate a table",
        usage: r##"cbt createtable <table-id> [families=<family>:<gcpolicy-expression>:<type-expression>,...]
   [splits=<split-row-key-1>,<split-row-key-2>,...]

  families     Column families and their associated garbage collection (gc) policies and types.
               Put gc policies in quotes when they include shell operators && and ||. For gcpolicy,
               see "setgcpolicy".
               Types "intsum", "intmin", "intmax", and "inthll" are supported.
  splits       Row key(s) where the table should initially be split

    Example: cbt createtable mobile-time-series "families=stats_summary:maxage=10d||maxversions=1,stats_detail:maxage=10d||maxversions=1" splits=tablet,phone
"##,
    },
    CommandHelp {
        name: "deletecolumn",
        line: "cbt deletecolumn\t\tDelete all cells in a column",
        usage: r##"cbt deletecolumn <table-id> <row-key> <family> <column> [app-profile=<app-profile-id>]

  app-profile=<app-profile-id>        The app profile ID to use for the request

    Example: cbt deletecolumn mobile-time-series phone#4c410523#20190501 stats_summary os_name
"##,
    },
    CommandHelp {
        name: "deletefamily",
        line: "cbt deletefamily\t\tDelete a column family",
        usage: r##"cbt deletefamily <table-id> <family>

    Example: cbt deletefamily mobile-time-series stats_summary
"##,
    },
    CommandHelp {
        name: "deleterow",
        line: "cbt deleterow\t\t\tDelete a row",
        usage: r##"cbt deleterow <table-id> <row-key> [app-profile=<app-profile-id>]

  app-profile=<app-profile-id>        The app profile ID to use for the request

    Example: cbt deleterow mobile-time-series phone#4c410523#20190501
"##,
    },
    CommandHelp {
        name: "deletetable",
        line: "cbt deletetable\t\t\tDelete a table",
        usage: r##"cbt deletetable <table-id>

    Example: cbt deletetable mobile-time-series
"##,
    },
    CommandHelp {
        name: "help",
        line: "cbt help\t\t\tPrint help text",
        usage: r##"cbt help <command>

    Example: cbt help createtable
"##,
    },
    CommandHelp {
        name: "import",
        line: "cbt import\t\t\tBatch write many rows based on the input file",
        usage: r##"cbt import <table-id> <input-file> [app-profile=<app-profile-id>] [column-family=<family-name>] [batch-size=<500>] [workers=<1>] [timestamp=<now|value-encoded>]

  app-profile=<app-profile-id>          The app profile ID to use for the request
  column-family=<family-name>           The column family label to use
  batch-size=<500>                      The max number of rows per batch write request
  workers=<1>                           The number of worker threads
  timestamp=<now|value-encoded>	     	Whether to use current time for all cells or interpret the timestamp from cell value. Defaults to 'now'.

  Import data from a CSV file into an existing Cloud Bigtable table that already has the column families your data requires.

  The CSV file can support two rows of headers:
      - (Optional) column families
      - Column qualifiers
  Because the first column is reserved for row keys, leave it empty in the header rows.
  In the column family header, provide each column family once; it applies to the column it is in and every column to the right until another column family is found.
  Each row after the header rows should contain a row key in the first column, followed by the data cells for the row.
  See the example below. If you don't provide a column family header row, the column header is your first row and your import command must include the `column-family` flag to specify an existing column family. 

  The timestamp for each cell will default to current time (timestamp=now), to explicitly set the timestamp for cells, set timestamp=value-encoded use <val>[@<timestamp>] as the value for the cell.
  If no timestamp is delimited for a cell, current time will be used. If the timestamp cannot be parsed, '@<timestamp>' will be interpreted as part of the value.
  For most uses, a timestamp is the number of microseconds since 1970-01-01 00:00:00 UTC.

    ,column-family-1,,column-family-2,      // Optional column family row (1st cell empty)
    ,column-1,column-2,column-3,column-4    // Column qualifiers row (1st cell empty)
    a,TRUE,,,FALSE                          // Rowkey 'a' followed by data
    b,,,TRUE,FALSE                          // Rowkey 'b' followed by data
    c,,TRUE,,TRUE                           // Rowkey 'c' followed by data
    d,TRUE@1577862000000000,,,FALSE		 	// Rowkey 'd' followed by data

  Examples:
    cbt import csv-import-table data.csv
    cbt import csv-import-table data-no-families.csv app-profile=batch-write-profile column-family=my-family workers=5

"##,
    },
    CommandHelp {
        name: "lookup",
        line: "cbt lookup\t\t\tRead from a single row",
        usage: r##"cbt lookup <table-id> <row-key> [columns=<family>:<qualifier>,...] [cells-per-column=<n>] [app-profile=<app profile id>]

  row-key                             String or raw bytes. Raw bytes must be enclosed in single quotes and have a dollar-sign prefix
  columns=<family>:<qualifier>,...    Read only these columns, comma-separated
  cells-per-column=<n>                Read only this number of cells per column
  app-profile=<app-profile-id>        The app profile ID to use for the request
  format-file=<path-to-format-file>   The path to a format-configuration file to use for the request
  keys-only=<true|false>              Whether to print only row keys
  include-stats=full                  Include a summary of request stats at the end of the request

 Example: cbt lookup mobile-time-series phone#4c410523#20190501 columns=stats_summary:os_build,os_name cells-per-column=1
 Example: cbt lookup mobile-time-series $'\x41\x42'
"##,
    },
    CommandHelp {
        name: "ls",
        line: "cbt ls\t\t\t\tList tables and column families",
        usage: r##"cbt ls                List tables
cbt ls <table-id>     List a table's column families and garbage collection policies

    Example: cbt ls mobile-time-series
"##,
    },
    CommandHelp {
        name: "read",
        line: "cbt read\t\t\tRead rows",
        usage: r##"cbt read <table-id> [authorized-view=<authorized-view-id>] [start=<row-key>] [end=<row-key>] [prefix=<row-key-prefix>] [regex=<regex>] [columns=<family>:<qualifier>,...] [count=<n>] [cells-per-column=<n>] [app-profile=<app-profile-id>]

  authorized-view=<authorized-view-id>  Read from the specified authorized view of the table
  start=<row-key>                       Start reading at this row
  end=<row-key>                         Stop reading before this row
  prefix=<row-key-prefix>               Read rows with this prefix
  regex=<regex>                         Read rows with keys matching this regex
  reversed=<true|false>                 Read rows in reverse order
  columns=<family>:<qualifier>,...      Read only these columns, comma-separated
  count=<n>                             Read only this many rows
  cells-per-column=<n>                  Read only this many cells per column
  app-profile=<app-profile-id>          The app profile ID to use for the request
  format-file=<path-to-format-file>     The path to a format-configuration file to use for the request
  keys-only=<true|false>                Whether to print only row keys
  include-stats=full                    Include a summary of request stats at the end of the request

    Examples: (see 'set' examples to create data to read)
      cbt read mobile-time-series prefix=phone columns=stats_summary:os_build,os_name count=10
      cbt read mobile-time-series start=phone#4c410523#20190501 end=phone#4c410523#20190601
      cbt read mobile-time-series regex="phone.*" cells-per-column=1
      cbt read mobile-time-series start=phone#4c410523#20190501 end=phone#4c410523#20190601 reversed=true count=10

   Note: Using a regex without also specifying start, end, prefix, or count results in a full
   table scan, which can be slow.

"##,
    },
    CommandHelp {
        name: "set",
        line: "cbt set\t\t\t\tSet value of a cell (write)",
        usage: r##"cbt set <table-id> <row-key> [authorized-view=<authorized-view-id>] [app-profile=<app-profile-id>] <family>:<column>=<val>[@<timestamp>] ...

  authorized-view=<authorized-view-id>  Write to the specified authorized view of the table
  app-profile=<app profile id>          The app profile ID to use for the request
  <family>:<column>=<val>[@<timestamp>] may be repeated to set multiple cells.

    timestamp is an optional integer. 
    If the timestamp cannot be parsed, '@<timestamp>' will be interpreted as part of the value.
    For most uses, a timestamp is the number of microseconds since 1970-01-01 00:00:00 UTC.

    Examples:
      cbt set mobile-time-series phone#4c410523#20190501 stats_summary:connected_cell=1@12345 stats_summary:connected_cell=0@1570041766
      cbt set mobile-time-series phone#4c410523#20190501 stats_summary:os_build=PQ2A.190405.003 stats_summary:os_name=android
"##,
    },
    CommandHelp {
        name: "setgcpolicy",
        line: "cbt setgcpolicy\t\t\tSet the garbage-collection policy (age, versions) for a column family",
        usage: r##"cbt setgcpolicy <table> <family> ((maxage=<d> | maxversions=<n>) [(and|or) (maxage=<d> | maxversions=<n>),...] | never) [force]

  force: Optional flag to override warnings when relaxing the garbage-collection policy on replicated clusters.
    This may cause your clusters to be temporarily inconsistent, make sure you understand the risks
    listed at https://cloud.google.com/bigtable/docs/garbage-collection#increasing

  maxage=<d>         Maximum timestamp age to preserve. Acceptable units: ms, s, m, h, d
  maxversions=<n>    Maximum number of versions to preserve
  Put garbage collection policies in quotes when they include shell operators && and ||.

    Examples:
      cbt setgcpolicy mobile-time-series stats_detail maxage=10d
      cbt setgcpolicy mobile-time-series stats_summary maxage=10d or maxversions=1 force

"##,
    },
];

/// What `help` prints: the list of commands.
pub fn list() -> String {
    let mut out = String::from("Usage: cbt <command> ...\n\n");
    for h in HELP {
        out.push_str(h.line);
        out.push('\n');
    }
    out
}

/// The help of one command.
pub fn of(name: &str) -> Option<&'static CommandHelp> {
    HELP.iter().find(|h| h.name == name)
}
