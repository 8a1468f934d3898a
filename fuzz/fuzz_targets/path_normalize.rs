//! The path normaliser: any text either resolves to a canonical key inside
//! the root or is refused with a path error; it never panics, never loops,
//! and a canonical path that crosses no symlink resolves to itself.
#![no_main]

use agent_checkpoint::internals::resolve;
use agent_checkpoint::root::MemNode;
use agent_checkpoint::{capture, snapshot_paths, CaptureOptions, ErrorCode, MemRoot, RelPath};
use libfuzzer_sys::fuzz_target;

const LINKS: [(&str, &str); 7] = [
    ("up", ".."),
    ("abs", "/elsewhere/x"),
    ("self", "self"),
    ("in", "dir"),
    ("chain", "in/sub"),
    ("rootabs", "/virtual/root/dir"),
    ("dir/back", "../dir"),
];

fn tree() -> MemRoot {
    let root = MemRoot::with_absolute_path("/virtual/root");
    for (path, node) in [
        (
            "dir/sub/f",
            MemNode::File {
                bytes: b"f".to_vec(),
                mode: 0o644,
            },
        ),
        (
            "dir/g",
            MemNode::File {
                bytes: b"g".to_vec(),
                mode: 0o644,
            },
        ),
        (
            "file",
            MemNode::File {
                bytes: b"x".to_vec(),
                mode: 0o644,
            },
        ),
        ("fifo", MemNode::Other),
        (
            ".git/config",
            MemNode::File {
                bytes: b"c".to_vec(),
                mode: 0o644,
            },
        ),
    ] {
        root.insert(&RelPath::try_from(path).unwrap(), node);
    }
    for (link, target) in LINKS {
        root.insert(
            &RelPath::try_from(link).unwrap(),
            MemNode::Symlink(target.into()),
        );
    }
    root
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let root = tree();
    match resolve(&root, input) {
        Ok(resolved) => {
            let key = resolved.key.as_str();
            assert_eq!(RelPath::try_from(key).ok().as_ref(), Some(&resolved.key));
            assert!(!key
                .split('/')
                .any(|c| c == ".." || c == "." || c.is_empty()));
            for (link, _) in &resolved.links {
                assert!(LINKS.iter().any(|(l, _)| *l == link.as_str()));
            }
        }
        Err(e) => assert!(
            matches!(
                e.code(),
                ErrorCode::InvalidPath | ErrorCode::PathEscapesRoot
            ),
            "{input:?}: {e}"
        ),
    }
    if let Ok(p) = RelPath::try_from(input) {
        let crosses_link = p
            .components()
            .scan(String::new(), |acc, c| {
                if !acc.is_empty() {
                    acc.push('/');
                }
                acc.push_str(c);
                Some(acc.clone())
            })
            .any(|prefix| {
                LINKS.iter().any(|(l, _)| *l == prefix) || prefix == "file" || prefix == "fifo"
            });
        if !crosses_link {
            let resolved = resolve(&root, input).expect("a canonical path resolves");
            assert_eq!(resolved.key, p);
        }
    }
    let before = root.entries();
    match capture(&root, [input], &CaptureOptions::default()) {
        Ok(snapshot) => assert!(!snapshot_paths(snapshot.as_str()).is_empty()),
        Err(e) => assert!(
            matches!(
                e.code(),
                ErrorCode::InvalidPath
                    | ErrorCode::PathEscapesRoot
                    | ErrorCode::NotAFile
                    | ErrorCode::NotADirectory
            ),
            "{input:?}: {e}"
        ),
    }
    assert_eq!(root.entries(), before, "capture wrote");
});
