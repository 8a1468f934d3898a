//! Every field of the core's option types is a flag of the command that
//! takes it, under the CLI's naming (`--kebab-case`, read from the
//! command's `--help`): `capture` (`CaptureOptions`), `rollback`
//! (`RollbackOptions`), `plan` (`PlanOptions`, `DiffOptions`). The field
//! lists are the types' own (`T::FIELDS`, checked against the structs by
//! the compiler), so a core option no flag offers turns this test red,
//! unless [`EXCEPTIONS`] says how the CLI spells it or why it lacks it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::BTreeSet;
use std::process::Command;

use agent_checkpoint::{CaptureOptions, DiffOptions, PlanOptions, RollbackOptions};

/// What the CLI does instead of `--field-name`.
#[derive(Clone, Copy)]
enum Instead {
    /// It offers this flag.
    Flag(&'static str),
    /// It offers none, for this reason.
    Absent(&'static str),
}
use Instead::{Absent, Flag};

const PROGRESS: &str = "progress is the bars on stderr, on unless `--quiet`";
const KEY_FILE: &str = "--key-file";

/// Every knowing difference, `(command, type, field, instead)`.
const EXCEPTIONS: &[(&str, &str, &str, Instead)] = &[
    ("capture", "CaptureOptions", "key", Flag(KEY_FILE)),
    (
        "capture",
        "CaptureOptions",
        "record_root",
        Flag("--no-record-root"),
    ),
    ("capture", "CaptureOptions", "progress", Absent(PROGRESS)),
    ("rollback", "RollbackOptions", "key", Flag(KEY_FILE)),
    (
        "rollback",
        "RollbackOptions",
        "durable",
        Flag("--no-durable"),
    ),
    ("rollback", "RollbackOptions", "redo", Flag("--redo-out")),
    (
        "rollback",
        "RollbackOptions",
        "max_file_bytes",
        Absent("not offered yet: the redo keeps the default limit (DEFAULT_MAX_FILE_BYTES)"),
    ),
    ("rollback", "RollbackOptions", "progress", Absent(PROGRESS)),
    ("plan", "PlanOptions", "key", Flag(KEY_FILE)),
    ("plan", "PlanOptions", "progress", Absent(PROGRESS)),
    ("plan", "DiffOptions", "max_bytes", Flag("--diff-max-bytes")),
];

/// `(command, type, fields)`: which command offers which type's fields.
fn commands() -> [(&'static str, &'static str, &'static [&'static str]); 4] {
    [
        ("capture", "CaptureOptions", CaptureOptions::FIELDS),
        ("rollback", "RollbackOptions", RollbackOptions::FIELDS),
        ("plan", "PlanOptions", PlanOptions::FIELDS),
        ("plan", "DiffOptions", DiffOptions::FIELDS),
    ]
}

/// The long flags `agent-checkpoint <command> --help` lists.
fn flags(command: &str) -> BTreeSet<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_agent-checkpoint"))
        .args([command, "--help"])
        .output()
        .expect("run the CLI");
    assert!(out.status.success(), "{command} --help");
    String::from_utf8(out.stdout)
        .expect("UTF-8 help")
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            // `-o, --output <FILE>`: the long flag after the short one.
            let line = match line.as_bytes() {
                [b'-', short, b',', b' ', ..] if *short != b'-' => &line[4..],
                _ => line,
            };
            let flag = line.strip_prefix("--")?;
            let end = flag
                .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
                .unwrap_or(flag.len());
            Some(format!("--{}", &flag[..end]))
        })
        .collect()
}

/// `command: type.field` for each field no flag offers; with `cut`, that
/// flag reads as missing from every command's help.
fn missing(cut: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    for (command, ty, fields) in commands() {
        let mut offered = flags(command);
        if let Some(cut) = cut {
            offered.remove(cut);
        }
        for field in fields {
            let flag = match EXCEPTIONS
                .iter()
                .find(|(c, t, f, _)| *c == command && *t == ty && f == field)
                .map(|e| e.3)
            {
                Some(Absent(_)) => continue,
                Some(Flag(flag)) => flag.to_owned(),
                None => format!("--{}", field.replace('_', "-")),
            };
            if !offered.contains(&flag) {
                out.push(format!("{command}: {ty}.{field}: no `{flag}`"));
            }
        }
    }
    out
}

#[test]
fn every_core_option_is_a_flag_of_its_command() {
    assert_eq!(missing(None), Vec::<String>::new());
}

#[test]
fn every_exception_names_a_field_of_its_command() {
    for (command, ty, field, instead) in EXCEPTIONS {
        let (_, _, fields) = commands()
            .into_iter()
            .find(|(c, t, _)| c == command && t == ty)
            .expect(ty);
        assert!(fields.contains(field), "{command}: {ty}.{field}: stale");
        let (Flag(said) | Absent(said)) = instead;
        assert!(!said.is_empty());
    }
}

/// The test of the test: a flag taken out of the help is found missing.
#[test]
fn a_flag_missing_from_the_help_is_found() {
    for (cut, expected) in [
        (
            "--strict-root",
            "rollback: RollbackOptions.strict_root: no `--strict-root`",
        ),
        (
            "--max-file-bytes",
            "capture: CaptureOptions.max_file_bytes: no `--max-file-bytes`",
        ),
        ("--context", "plan: DiffOptions.context: no `--context`"),
        (KEY_FILE, "plan: PlanOptions.key: no `--key-file`"),
    ] {
        let found = missing(Some(cut));
        assert!(
            found.iter().any(|m| m == expected),
            "without {cut}: {found:?}"
        );
    }
}
