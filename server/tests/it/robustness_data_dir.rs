//! A `--data-dir` on a read-only file system: the server refuses to start, with a message
//! saying the directory is not writable, rather than starting and answering UNAVAILABLE to
//! every request (docs/errors.md, "Storage failures").
//!
//! The test mounts a small tmpfs and remounts it read-only, which needs root (as root,
//! `chmod` alone does not stop writes): it is `#[ignore]`d; run it with `--ignored`.

use std::path::PathBuf;
use std::process::Command;

struct ReadOnlyFs {
    dir: PathBuf,
}

fn mount(args: &[&str], dir: &PathBuf) {
    let ok = Command::new("mount")
        .args(args)
        .arg(dir)
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "mount {args:?} {} failed (this test needs root)",
        dir.display()
    );
}

impl Drop for ReadOnlyFs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.dir).status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
#[ignore = "mounts a tmpfs and remounts it read-only: needs root; run with --ignored"]
fn a_server_on_a_real_read_only_data_dir_refuses_to_start() {
    let dir = std::env::temp_dir().join(format!("sparsetable-ro-server-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    mount(&["-t", "tmpfs", "-o", "size=2m", "tmpfs"], &dir);
    let fs = ReadOnlyFs { dir };
    // A data directory an earlier server left (its lock file included), now read-only.
    let data = fs.dir.join("data");
    std::fs::create_dir_all(data.join("p").join("i")).unwrap();
    std::fs::write(data.join("LOCK"), b"").unwrap();
    mount(&["-o", "remount,ro"], &fs.dir);

    let out = Command::new(env!("CARGO_BIN_EXE_sparsetable-server"))
        .args(["--host", "127.0.0.1", "--port", "0", "--data-dir"])
        .arg(&data)
        .output()
        .expect("run sparsetable-server");
    assert!(
        !out.status.success(),
        "the server started on a read-only directory"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("is not writable") && stderr.contains("Read-only file system"),
        "the message says why: {stderr}"
    );
}
