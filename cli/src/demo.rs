//! `agent-checkpoint demo`: capture, apply a batch, roll back, compare.

use std::collections::BTreeMap;
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

/// The arguments of `demo`.
#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Leave the temporary project in place (its path is printed) for a look.
    #[arg(long)]
    keep: bool,
}

/// How the demo reports: the whole story, the check line only
/// (`--quiet`), or one JSON document (`--json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// Every listing, the report and the check.
    Text,
    /// The check line only.
    Quiet,
    /// `{"project", "kept", "captured", "batch", "report", "identical", "ok"}`.
    Json,
}

/// Runs the demo; exits 1 when the tree after rollback differs or the
/// report is not ok.
pub fn run(args: &DemoArgs, show: Show) -> Result<ExitCode, Error> {
    let tmp = tempfile::tempdir().map_err(|e| Error::io("<tempdir>", e))?;
    let dir = tmp.path().to_path_buf();
    let text = show == Show::Text;
    if text {
        println!("demo project: {}", dir.display());
    }
    seed_project(&dir).map_err(|e| Error::io(dir.to_string_lossy(), e))?;
    let before = listing(&dir)?;
    if text {
        print_listing("before the batch", &before);
    }

    let root = CapRoot::open(&dir, ambient_authority())?;
    let json = agent_checkpoint::capture(&root, BATCH_PATHS, &CaptureOptions::default())?;
    let snapshot = json.parse(&ParseOptions::default())?;
    if text {
        println!(
            "\ncaptured {} paths in a {}-byte snapshot: {}",
            snapshot.len(),
            json.len(),
            snapshot.paths().join(", ")
        );
    }

    apply_batch(&dir).map_err(|e| Error::io(dir.to_string_lossy(), e))?;
    let batch = changes(&before, &listing(&dir)?);
    if text {
        println!("\nafter the batch (what it did to each path):");
        for (path, change) in &batch {
            println!("  {path}  {change}");
        }
    }

    let report = agent_checkpoint::rollback(&root, &snapshot, &RollbackOptions::default())?;
    let after = listing(&dir)?;
    if text {
        println!(
            "\nrollback report:\n{}",
            crate::output::format_report(&report)
        );
        print_listing("after rollback", &after);
    }

    let identical = after == before;
    let kept = args.keep.then(|| tmp.keep());
    match show {
        Show::Json => {
            let doc = serde_json::json!({
                "project": dir.to_string_lossy(),
                "kept": kept.is_some(),
                "captured": snapshot.paths(),
                "batch": batch,
                "report": report,
                "identical": identical,
                "ok": report.ok(),
            });
            crate::output::print_json(&doc)?;
        }
        Show::Text | Show::Quiet => {
            println!(
                "{}check: tree after rollback {} the tree before the batch; report ok = {}",
                if text { "\n" } else { "" },
                if identical {
                    "is identical to"
                } else {
                    "DIFFERS from"
                },
                report.ok()
            );
            if let Some(kept) = &kept {
                println!("kept the demo project: {}", kept.display());
            }
        }
    }
    Ok(if identical && report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// What the batch did to each path that changed: `created`, `deleted`,
/// `modified`, `mode 600 -> 644`, or `modified, mode ...`.
fn changes(before: &Listing, after: &Listing) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (path, (kind, mode, bytes)) in after {
        let change = match before.get(path) {
            None if *kind == 'd' => "created (directory)".to_owned(),
            None => "created".to_owned(),
            Some((old_kind, old_mode, old_bytes)) => {
                let mut parts = Vec::new();
                if old_kind != kind {
                    parts.push("replaced".to_owned());
                } else if old_bytes != bytes {
                    parts.push("modified".to_owned());
                }
                if old_mode != mode && old_kind == kind {
                    parts.push(format!("mode {old_mode:o} -> {mode:o}"));
                }
                if parts.is_empty() {
                    continue;
                }
                parts.join(", ")
            }
        };
        out.insert(path.clone(), change);
    }
    for (path, (kind, ..)) in before {
        if !after.contains_key(path) {
            let change = if *kind == 'd' {
                "deleted (directory)"
            } else {
                "deleted"
            };
            out.insert(path.clone(), change.to_owned());
        }
    }
    out
}

fn seed_project(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::create_dir_all(dir.join("assets"))?; // pre-existing and empty: must survive
    std::fs::create_dir_all(dir.join("data"))?;
    std::fs::write(dir.join("src/app.py"), "def main():\n    print('hello')\n")?;
    std::fs::write(dir.join("src/util.py"), "#!/usr/bin/env python3\nX = 1\n")?;
    set_mode(&dir.join("src/util.py"), 0o755)?;
    std::fs::write(dir.join("README.md"), "# demo\n")?;
    set_mode(&dir.join("README.md"), 0o600)?;
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
    set_mode(&dir.join("README.md"), 0o644)?;
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
        let mode = mode_of(&meta);
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

/// Sets a file's permission bits (on Windows: read-only when no write bit).
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    let permissions = {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::Permissions::from_mode(mode)
    };
    #[cfg(not(unix))]
    let permissions = {
        let mut p = std::fs::metadata(path)?.permissions();
        p.set_readonly(mode & 0o222 == 0);
        p
    };
    std::fs::set_permissions(path, permissions)
}

/// A file's permission bits (on Windows: `0o444` read-only, else `0o644`).
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(not(unix))]
    {
        if meta.permissions().readonly() {
            0o444
        } else {
            0o644
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_batch_is_described_per_path() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        seed_project(tmp.path()).unwrap_or_else(|e| panic!("{e}"));
        let before = listing(tmp.path()).unwrap_or_else(|e| panic!("{e}"));
        apply_batch(tmp.path()).unwrap_or_else(|e| panic!("{e}"));
        let after = listing(tmp.path()).unwrap_or_else(|e| panic!("{e}"));
        let batch = changes(&before, &after);
        let got: Vec<(&str, &str)> = batch
            .iter()
            .map(|(p, c)| (p.as_str(), c.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("README.md", "modified, mode 600 -> 644"),
                ("assets/logo.svg", "created"),
                ("data/blob.bin", "modified"),
                ("gen", "created (directory)"),
                ("gen/models", "created (directory)"),
                ("gen/models/user.py", "created"),
                ("src/app.py", "modified"),
                ("src/util.py", "deleted"),
            ]
        );
    }
}
