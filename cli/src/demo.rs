//! `agent-checkpoint demo`: capture, apply a batch, roll back, compare.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::ExitCode;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions, Error, ParseOptions, RollbackOptions};

/// What the demo compares: path -> (kind, permission bits, bytes).
type Listing = BTreeMap<String, (char, u32, Vec<u8>)>;

/// The batch the demo's "agent" applies, and so the paths it captures first.
const BATCH_PATHS: [&str; 6] = [
    "src/app.py",
    "src/util.py",
    "./src/../README.md",
    "gen/models/user.py",
    "assets/logo.svg",
    "data/blob.bin",
];

pub fn run() -> Result<ExitCode, Error> {
    let tmp = tempfile::tempdir().map_err(|e| Error::io("<tempdir>", e))?;
    let dir = tmp.path();
    println!("demo project: {}", dir.display());
    seed_project(dir).map_err(|e| Error::io(dir.to_string_lossy(), e))?;
    let before = listing(dir)?;
    print_listing("before the batch", &before);

    let root = CapRoot::open(dir, ambient_authority())?;
    let json = agent_checkpoint::capture(&root, BATCH_PATHS, &CaptureOptions::default())?;
    let snapshot = json.parse(&ParseOptions::default())?;
    println!(
        "\ncaptured {} paths in a {}-byte snapshot: {}",
        snapshot.len(),
        json.len(),
        snapshot.paths().join(", ")
    );

    apply_batch(dir).map_err(|e| Error::io(dir.to_string_lossy(), e))?;
    print_listing(
        "after the batch (modified, deleted, created files and dirs)",
        &listing(dir)?,
    );

    let report = agent_checkpoint::rollback(&root, &snapshot, &RollbackOptions::default())?;
    println!(
        "\nrollback report:\n{}",
        crate::output::format_report(&report)
    );
    let after = listing(dir)?;
    print_listing("after rollback", &after);

    let identical = after == before;
    println!(
        "\ncheck: tree after rollback {} the tree before the batch; report ok = {}",
        if identical {
            "is identical to"
        } else {
            "DIFFERS from"
        },
        report.ok()
    );
    Ok(if identical && report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn seed_project(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::create_dir_all(dir.join("assets"))?; // pre-existing and empty: must survive
    std::fs::create_dir_all(dir.join("data"))?;
    std::fs::write(dir.join("src/app.py"), "def main():\n    print('hello')\n")?;
    std::fs::write(dir.join("src/util.py"), "#!/usr/bin/env python3\nX = 1\n")?;
    std::fs::set_permissions(
        dir.join("src/util.py"),
        std::fs::Permissions::from_mode(0o755),
    )?;
    std::fs::write(dir.join("README.md"), "# demo\n")?;
    std::fs::set_permissions(
        dir.join("README.md"),
        std::fs::Permissions::from_mode(0o600),
    )?;
    std::fs::write(dir.join("data/blob.bin"), [0u8, 159, 146, 150, 255, 0, 10])?;
    Ok(())
}

fn apply_batch(dir: &Path) -> std::io::Result<()> {
    std::fs::write(
        dir.join("src/app.py"),
        "def main():\n    raise SystemExit(1)\n",
    )?;
    std::fs::remove_file(dir.join("src/util.py"))?;
    std::fs::write(dir.join("README.md"), "# rewritten by the agent\n")?;
    std::fs::set_permissions(
        dir.join("README.md"),
        std::fs::Permissions::from_mode(0o644),
    )?;
    std::fs::create_dir_all(dir.join("gen/models"))?;
    std::fs::write(dir.join("gen/models/user.py"), "class User: ...\n")?;
    std::fs::write(dir.join("assets/logo.svg"), "<svg/>")?;
    std::fs::write(dir.join("data/blob.bin"), b"text now")?;
    Ok(())
}

fn listing(dir: &Path) -> Result<Listing, Error> {
    let mut out = Listing::new();
    walk(dir, dir, &mut out).map_err(|e| Error::io(dir.to_string_lossy(), e))?;
    Ok(out)
}

fn walk(base: &Path, dir: &Path, out: &mut Listing) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let rel = path
            .strip_prefix(base)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        let meta = std::fs::symlink_metadata(&path)?;
        let mode = meta.permissions().mode() & 0o7777;
        if meta.is_dir() {
            out.insert(rel, ('d', mode, Vec::new()));
            walk(base, &path, out)?;
        } else if meta.is_file() {
            out.insert(rel, ('f', mode, std::fs::read(&path)?));
        } else {
            out.insert(rel, ('l', mode, Vec::new()));
        }
    }
    Ok(())
}

fn print_listing(title: &str, listing: &Listing) {
    println!("\n{title}:");
    for (path, (kind, mode, bytes)) in listing {
        match kind {
            'd' => println!("  {path}/"),
            _ => println!("  {path}  ({} bytes, mode {mode:o})", bytes.len()),
        }
    }
}
