//! The component never reaches outside its preopen: `..`, absolute paths
//! elsewhere and symlinks pointing out are refused with `path-escapes-root`,
//! and a sentinel directory beside the preopen is byte-for-byte unchanged.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]

mod common;

use std::path::{Path, PathBuf};

use agent_checkpoint_component_host::{
    CaptureOptions, ComponentHost, ErrorCode, OnConflict, PlanAction, PlanOptions,
    RecordAppliedOptions, RollbackOptions,
};

const GUEST: &str = "/sandbox";

fn wasm_path() -> PathBuf {
    std::env::var_os("CHECKPOINT_COMPONENT_WASM").map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../../target/wasm32-wasip2/debug/agent_checkpoint_component.wasm")
        },
        PathBuf::from,
    )
}

#[test]
fn escapes_are_refused_and_nothing_outside_is_written() {
    let host =
        ComponentHost::new(&wasm_path()).expect("the component is built (scripts/component)");
    let base = tempfile::tempdir().unwrap();
    let preopen = base.path().join("preopen");
    let sentinel = base.path().join("sentinel");
    std::fs::create_dir_all(sentinel.join("deep")).unwrap();
    std::fs::write(sentinel.join("secret.txt"), "do not touch").unwrap();
    std::fs::write(sentinel.join("deep/x"), "x").unwrap();
    std::fs::create_dir(&preopen).unwrap();
    std::fs::write(preopen.join("inside.txt"), "mine").unwrap();
    std::os::unix::fs::symlink("../sentinel", preopen.join("out")).unwrap();
    std::os::unix::fs::symlink(&sentinel, preopen.join("abs")).unwrap();
    std::os::unix::fs::symlink("../sentinel/secret.txt", preopen.join("leaf")).unwrap();
    let before = common::read_native(&sentinel).unwrap();

    let mut inst = host.instantiate(&preopen, GUEST).unwrap();
    let host_abs = sentinel.join("secret.txt").to_str().unwrap().to_owned();
    let options = CaptureOptions {
        allow_git_dir: false,
        max_file_bytes: None,
        key: None,
        record_root: true,
    };
    for path in [
        "../sentinel/secret.txt",
        "a/../../sentinel/secret.txt",
        "/sentinel/secret.txt",
        "/sandbox/../sentinel/secret.txt",
        host_abs.as_str(),
        "out/secret.txt",
        "abs/secret.txt",
        "leaf",
    ] {
        let paths = vec![path.to_owned()];
        let got = inst
            .call(|c, s| c.call_create_checkpoint(s, GUEST, &paths, &options))
            .unwrap();
        let err = got.expect_err(path);
        assert_eq!(
            err.code,
            ErrorCode::PathEscapesRoot,
            "{path}: {}",
            err.message
        );
    }

    // A root outside the preopen cannot even be opened.
    let paths = vec!["secret.txt".to_owned()];
    for root in [
        "/sentinel",
        "/sandbox/../sentinel",
        sentinel.to_str().unwrap(),
    ] {
        let got = inst
            .call(|c, s| c.call_create_checkpoint(s, root, &paths, &options))
            .unwrap();
        assert!(got.is_err(), "root {root} opened");
    }

    // Rollback of hostile snapshots: `..` keys are refused whole; a key
    // through a symlinked parent is not written through.
    let ro = RollbackOptions {
        durable: true,
        allow_git_dir: false,
        on_conflict: OnConflict::Overwrite,
        key: None,
        redo: true,
        restore_setid: false,
        strict_root: false,
        max_file_bytes: None,
    };
    let dotdot =
        r#"{"version":1,"entries":{"../sentinel/secret.txt":"cHduZWQ="},"created_dirs":[]}"#;
    let report = inst
        .call(|c, s| c.call_rollback(s, GUEST, dotdot, &ro))
        .unwrap()
        .unwrap();
    assert!(!report.valid);
    for key in [
        "out/secret.txt",
        "abs/secret.txt",
        "out/deep/x",
        "out/new.txt",
    ] {
        let text = format!(r#"{{"version":1,"entries":{{"{key}":"cHduZWQ="}},"created_dirs":[]}}"#);
        let report = inst
            .call(|c, s| c.call_rollback(s, GUEST, &text, &ro))
            .unwrap()
            .unwrap();
        assert!(report.valid, "{key}");
        let unrestored: Vec<&str> = report.unrestored.iter().map(|u| u.path.as_str()).collect();
        assert_eq!(unrestored, [key], "{key} was written through a symlink");
        // Refused by the plan, with the code the report gives the path; the
        // redo cannot carry what it could not look at.
        assert_eq!(report.unrestored[0].code, ErrorCode::NotADirectory, "{key}");
        let plan: Vec<_> = report
            .plan
            .iter()
            .map(|i| (i.path.as_str(), i.action, i.code))
            .collect();
        assert_eq!(
            plan,
            [(key, PlanAction::Refuse, Some(ErrorCode::NotADirectory))],
            "{key}"
        );
        let not_in_redo: Vec<&str> = report.not_in_redo.iter().map(|n| n.path.as_str()).collect();
        assert_eq!(not_in_redo, [key], "{key}");
    }
    let null_entry = r#"{"version":1,"entries":{"out/secret.txt":null},"created_dirs":[]}"#;
    let report = inst
        .call(|c, s| c.call_rollback(s, GUEST, null_entry, &ro))
        .unwrap()
        .unwrap();
    assert!(!report.ok, "deleting through a symlinked parent must fail");

    // The preview and the guard only read, and never through a link: the
    // preview refuses a key below a symlinked parent, the guard fails on it;
    // a link pointing out is recorded as a link, not as the sentinel's
    // content.
    let po = PlanOptions {
        allow_git_dir: false,
        on_conflict: OnConflict::Skip,
        key: None,
        restore_setid: false,
        strict_root: false,
        diff: None,
    };
    let ra = RecordAppliedOptions {
        allow_git_dir: false,
        key: None,
    };
    let through = r#"{"version":1,"entries":{"out/secret.txt":"cHduZWQ="},"created_dirs":[]}"#;
    let plan = inst
        .call(|c, s| c.call_plan_rollback(s, GUEST, through, &po))
        .unwrap()
        .unwrap();
    assert_eq!(plan.len(), 1, "{plan:?}");
    assert_eq!(plan[0].path, "out/secret.txt");
    assert_eq!(
        plan[0].action,
        PlanAction::Refuse,
        "planned through a symlinked parent"
    );
    assert_eq!(plan[0].code, Some(ErrorCode::NotADirectory));
    assert!(
        plan[0]
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("symlink")),
        "{plan:?}"
    );
    let recorded = inst.call(|c, s| c.call_record_applied(s, GUEST, through, &ra));
    assert!(
        recorded.unwrap().is_err(),
        "recorded through a symlinked parent"
    );
    let leaf = r#"{"version":1,"entries":{"leaf":"cHduZWQ="},"created_dirs":[]}"#;
    let recorded = inst
        .call(|c, s| c.call_record_applied(s, GUEST, leaf, &ra))
        .unwrap()
        .unwrap();
    // SHA-256 of the sentinel's "do not touch".
    assert!(!recorded.contains("4370e2ab7786e7bc"), "{recorded}");

    assert_eq!(
        common::read_native(&sentinel).unwrap(),
        before,
        "the sentinel changed"
    );
    assert_eq!(
        std::fs::read_to_string(preopen.join("inside.txt")).unwrap(),
        "mine"
    );
}
