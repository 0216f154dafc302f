//! Opening reads metadata, not data; a corrupt data block is found by the read that touches
//! it (and by the explicit verify), never taken for the end of the data.
//!
//! Bytes are counted through `CountingStorage` around the in-memory backend, so the bounds
//! are exact and deterministic: opening a database of many large run files reads each run's
//! footer, properties, index and filter (plus the manifest and the log), and no data block.

use std::sync::Arc;

use sparsetable::lsm::sstable::Sstable;
use sparsetable::platform::storage::{read_all, CountingStorage, MemStorage, Storage};
use sparsetable::{
    Code, Database, Durability, GcRule, ManualClock, Mutation, OpenOptions, ReadModifyWriteRule,
    ReadRowsRequest, Row, RowRange, RowSet, SharedDatabase, TableConfig, TabletOptions,
    TimestampRange,
};

const NOW: i64 = 50_000_000;

fn options(verify_on_open: bool) -> OpenOptions {
    OpenOptions {
        durability: Durability::None,
        verify_on_open,
        ..OpenOptions::default()
    }
}

fn open(storage: Arc<dyn Storage>, verify_on_open: bool) -> sparsetable::Result<Database> {
    Database::open(
        storage,
        options(verify_on_open),
        Arc::new(ManualClock::new(NOW)),
    )
}

/// One tablet that flushes a run every `memtable_bytes` and never merges, splits or
/// compacts them on its own.
fn config(memtable_bytes: u64) -> TableConfig {
    let mut config = TableConfig {
        tablet_options: TabletOptions {
            memtable_bytes,
            max_runs: 10_000,
            split_bytes: u64::MAX,
            merge_bytes: 0,
            split_load_ops: 0,
        },
        ..TableConfig::with_families(["f", "g"])
    };
    // A family with a GC rule: a ranged delete in it reads the row to bury what GC collects.
    if let Some(g) = config.families.get_mut("g") {
        g.gc_rule = GcRule::MaxNumVersions(1);
    }
    config
}

/// A value of `len` bytes that no compression shrinks much (an LCG's high bytes).
fn value(row: u32, len: usize) -> Vec<u8> {
    let mut x = u64::from(row).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (x >> 56) as u8
        })
        .collect()
}

fn key(prefix: &str, i: u32) -> Vec<u8> {
    format!("{prefix}{i:05}").into_bytes()
}

/// The run files of a storage: name, file size, bytes of data blocks.
fn runs(storage: &dyn Storage) -> Vec<(String, u64, u64)> {
    storage
        .list()
        .unwrap()
        .into_iter()
        .filter(|n| n.ends_with(".sst"))
        .map(|n| {
            let table = Sstable::open(storage.open(&n).unwrap()).unwrap();
            let size = table.properties().file_size;
            (n, size, table.data_bytes())
        })
        .collect()
}

#[test]
fn opening_reads_the_metadata_of_many_large_runs_not_their_data() {
    const ROWS: u32 = 4_096;
    const VALUE: usize = 2_048;
    let storage = MemStorage::new();
    {
        let mut db = open(Arc::new(storage.clone()), false).unwrap();
        db.create_table("t", config(512 << 10)).unwrap();
        for i in 0..ROWS {
            db.mutate_row(
                "t",
                &key("r", i),
                &[Mutation::set_cell("f", b"q", 1_000, value(i, VALUE))],
            )
            .unwrap();
        }
        // The log starts afresh: what opening reads is then the runs' metadata and the
        // manifest (a log is read whole, to replay it, whatever its size).
        db.checkpoint().unwrap();
    }
    let runs = runs(&storage);
    let data: u64 = runs.iter().map(|r| r.2).sum();
    let metadata: u64 = runs.iter().map(|r| r.1 - r.2).sum();
    assert!(runs.len() >= 12, "{} runs", runs.len());
    assert!(
        data >= u64::from(ROWS) * VALUE as u64,
        "{data} bytes of data"
    );
    let others: u64 = storage
        .list()
        .unwrap()
        .iter()
        .filter(|n| !n.ends_with(".sst"))
        .map(|n| read_all(&storage, n).unwrap().len() as u64)
        .sum();

    let counting = CountingStorage::new(storage.clone());
    let db = open(Arc::new(counting.clone()), false).unwrap();
    let at_open = counting.bytes_read();
    let from_runs = counting.bytes_read_of(".sst");
    // Each run file: its metadata at most, never a data block.
    for (name, read, _) in counting.per_file() {
        if let Some((_, size, data)) = runs.iter().find(|r| r.0 == name) {
            assert!(read <= size - data, "{name}: read {read} of {size} bytes");
        }
    }
    // The manifest and the log are read whole (the log to replay it); runs written by the
    // open's own checkpoint are read back for their metadata only.
    assert!(from_runs <= metadata + 4_096, "{from_runs} > {metadata}");
    assert!(
        at_open <= metadata + others + 4_096,
        "{at_open}: {:?}",
        counting.per_file()
    );
    assert!(
        at_open * 20 < data,
        "opening read {at_open} bytes of a {data}-byte table"
    );

    // A point read reads the block holding the row (and no other data block).
    counting.reset();
    let row = db.read_row("t", &key("r", 1_234)).unwrap().unwrap();
    assert_eq!(row.cells[0].value, value(1_234, VALUE));
    let one_read = counting.bytes_read();
    assert!(
        one_read > 0 && one_read <= 2 * 4_096 + 2 * VALUE as u64,
        "{one_read}"
    );

    // Every row is there, read lazily.
    let rows = db
        .read_rows("t", &ReadRowsRequest::default())
        .unwrap()
        .into_rows()
        .unwrap();
    assert_eq!(rows.len(), ROWS as usize);
    drop(db);

    // The full check reads every data block, at open or on request.
    counting.reset();
    let db = open(Arc::new(counting.clone()), true).unwrap();
    assert!(counting.bytes_read_of(".sst") >= data);
    counting.reset();
    let report = db.verify().unwrap();
    assert!(report.runs >= runs.len() as u64 - 1, "{report:?}");
    assert!(counting.bytes_read_of(".sst") >= data);
}

/// Rows `r00000..r01999` in one run, `s00000..s00099` in another; the byte in the middle of
/// the first run's data blocks flipped. Returns the storage and the damaged file's name.
fn damaged() -> (MemStorage, String) {
    let storage = MemStorage::new();
    {
        let mut db = open(Arc::new(storage.clone()), false).unwrap();
        db.create_table("t", config(64 << 20)).unwrap();
        for i in 0..2_000 {
            db.mutate_row(
                "t",
                &key("r", i),
                &[Mutation::set_cell("f", b"q", 1_000, value(i, 500))],
            )
            .unwrap();
        }
        db.checkpoint().unwrap();
        for i in 0..100 {
            db.mutate_row(
                "t",
                &key("s", i),
                &[Mutation::set_cell("f", b"q", 1_000, value(i, 500))],
            )
            .unwrap();
        }
        db.checkpoint().unwrap();
    }
    let runs = runs(&storage);
    assert_eq!(runs.len(), 2, "{runs:?}");
    let (name, _, data) = runs.iter().max_by_key(|r| r.1).unwrap().clone();
    let mut bytes = read_all(&storage, &name).unwrap();
    bytes[(data / 2) as usize] ^= 0x5a;
    storage.set_bytes(&name, bytes);
    (storage, name)
}

fn assert_data_loss<T: std::fmt::Debug>(r: sparsetable::Result<T>, file: &str, what: &str) {
    let e = r.expect_err(what);
    assert_eq!(e.code(), Code::DataLoss, "{what}: {e}");
    assert!(e.message().contains(file), "{what}: {e}");
}

fn scan(db: &Database, request: &ReadRowsRequest) -> (Vec<Row>, sparsetable::Result<()>) {
    let mut stream = db.read_rows("t", request).unwrap();
    let mut rows = Vec::new();
    loop {
        match stream.try_next() {
            Ok(Some(row)) => rows.push(row),
            Ok(None) => return (rows, Ok(())),
            Err(e) => return (rows, Err(e)),
        }
    }
}

#[test]
fn a_corrupt_block_is_data_loss_at_the_read_that_touches_it_and_other_rows_still_read() {
    let (storage, file) = damaged();
    // The default open reads no data block: it succeeds.
    let mut db = open(Arc::new(storage.clone()), false).unwrap();

    // Point reads: the rows of the bad block fail, naming the file; every other row reads.
    let mut bad = Vec::new();
    for i in 0..2_000 {
        match db.read_row("t", &key("r", i)) {
            Ok(row) => assert_eq!(row.unwrap().cells[0].value, value(i, 500), "row {i}"),
            Err(e) => {
                assert_eq!(e.code(), Code::DataLoss, "row {i}: {e}");
                assert!(e.message().contains(&file), "{e}");
                bad.push(i);
            }
        }
    }
    assert!(!bad.is_empty() && bad.len() < 20, "bad rows {bad:?}");
    assert_eq!(bad.len() as u32, bad[bad.len() - 1] - bad[0] + 1, "{bad:?}");
    let (first_bad, last_bad) = (bad[0], bad[bad.len() - 1]);
    for i in 0..100 {
        let row = db.read_row("t", &key("s", i)).unwrap().unwrap();
        assert_eq!(row.cells[0].value, value(i, 500));
    }

    // A forward scan hands out the whole rows before the bad block, then the error.
    let (rows, end) = scan(&db, &ReadRowsRequest::default());
    assert_data_loss(end, &file, "forward scan");
    assert_eq!(rows.len() as u32, first_bad);
    assert!(rows
        .iter()
        .enumerate()
        .all(|(i, r)| r.key == key("r", i as u32) && r.cells[0].value == value(i as u32, 500)));
    let stream = db.read_rows("t", &ReadRowsRequest::default()).unwrap();
    assert_data_loss(stream.into_rows(), &file, "into_rows");
    let mut stream = db.read_rows("t", &ReadRowsRequest::default()).unwrap();
    assert_eq!(stream.by_ref().count() as u32, first_bad);
    assert_data_loss(stream.status(), &file, "status after the end");
    assert!(!stream.is_exhausted());

    // Reversed: the rows after the bad block (the s rows first), then the error.
    let reversed = ReadRowsRequest {
        reversed: true,
        ..ReadRowsRequest::default()
    };
    let (rows, end) = scan(&db, &reversed);
    assert_data_loss(end, &file, "reversed scan");
    // The row just after the bad block may be left out too: walking backwards, the scan
    // cannot know whether that row began in the bad block, so it does not return it.
    let returned = rows.len() as u32 - 100;
    assert!(
        returned == 1_999 - last_bad || returned + 1 == 1_999 - last_bad,
        "{returned} rows after {last_bad}"
    );
    assert!(rows.iter().enumerate().all(|(i, r)| {
        let (prefix, n) = match i {
            0..100 => ("s", 99 - i as u32),
            _ => ("r", 1_999 - (i as u32 - 100)),
        };
        r.key == key(prefix, n) && r.cells[0].value == value(n, 500)
    }));

    // Ranges clear of the bad block read whole, both ways.
    for reversed in [false, true] {
        let clear = ReadRowsRequest {
            row_set: RowSet {
                row_keys: Vec::new(),
                row_ranges: vec![RowRange::closed_open(key("r", 0), key("r", first_bad))],
            },
            reversed,
            ..ReadRowsRequest::default()
        };
        let (rows, end) = scan(&db, &clear);
        end.unwrap();
        assert_eq!(rows.len() as u32, first_bad);
    }

    // Writes that read the row first fail before anything is written.
    let row = key("r", first_bad);
    assert_data_loss(
        db.check_and_mutate_row(
            "t",
            &row,
            None,
            &[Mutation::set_cell("f", b"x", 1_000, b"v")],
            &[],
        ),
        &file,
        "check_and_mutate_row",
    );
    assert_data_loss(
        db.read_modify_write_row("t", &row, &[ReadModifyWriteRule::append("f", b"q", b"!")]),
        &file,
        "read_modify_write_row",
    );
    assert_data_loss(
        db.mutate_row(
            "t",
            &row,
            &[Mutation::DeleteFromColumn {
                family: "g".into(),
                qualifier: b"q".to_vec(),
                time_range: TimestampRange {
                    start_micros: 1_000,
                    end_micros: Some(2_000),
                },
            }],
        ),
        &file,
        "a ranged delete that buries GC-collectable cells",
    );
    assert_data_loss(db.read_row_versions("t", &row), &file, "read_row_versions");
    // Writes that do not read the row still go through.
    db.mutate_row("t", &row, &[Mutation::set_cell("f", b"new", 1_000, b"v")])
        .unwrap();

    // Compaction reads every row: it fails, and the table is as it was.
    assert_data_loss(db.compact_table("t"), &file, "compact_table");
    assert_data_loss(db.read_row("t", &row), &file, "read after compaction");
    let fine = db.read_row("t", &key("r", 0)).unwrap().unwrap();
    assert_eq!(fine.cells[0].value, value(0, 500));

    // A backup shares the runs (or compacts first): the damage goes with it.
    match db.create_backup("t", "b") {
        Err(e) => assert_data_loss::<()>(Err(e), &file, "create_backup"),
        Ok(_) => {
            db.restore_table("b", "restored").unwrap();
            assert_data_loss(db.read_row("restored", &row), &file, "restored read");
        }
    }

    // The explicit check finds it, and so does an open that verifies.
    assert_data_loss(db.verify(), &file, "verify");
    let shared = SharedDatabase::new(db);
    assert_data_loss(shared.verify(), &file, "SharedDatabase::verify");
    assert_data_loss(
        shared.read_rows("t", &ReadRowsRequest::default()),
        &file,
        "SharedDatabase::read_rows",
    );
    drop(shared);
    assert_data_loss(open(Arc::new(storage), true), &file, "verify_on_open");
}

#[test]
fn verify_passes_on_a_sound_database_and_counts_its_runs() {
    let storage = MemStorage::new();
    let mut db = open(Arc::new(storage.clone()), false).unwrap();
    db.create_table("t", config(4 << 10)).unwrap();
    for i in 0..200 {
        db.mutate_row(
            "t",
            &key("r", i),
            &[Mutation::set_cell("f", b"q", 1_000, value(i, 100))],
        )
        .unwrap();
    }
    db.create_backup("t", "b").unwrap();
    db.checkpoint().unwrap();
    let report = db.verify().unwrap();
    let files = runs(&storage);
    assert_eq!(report.runs, files.len() as u64);
    assert_eq!(report.bytes, files.iter().map(|f| f.1).sum::<u64>());
    drop(db);
    open(Arc::new(storage), true).unwrap();
}
