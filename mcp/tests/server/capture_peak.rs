//! Issue 29.9: capture's peak memory is at most about 1.6x the snapshot it
//! returns. A child process (this test binary again) captures two files of
//! random bytes, with the core's `capture` alone and with the MCP
//! `capture_checkpoint` tool (git storage), and reports its high-water mark
//! (`VmHWM` in `/proc/self/status`) before and after; the growth is
//! compared with the snapshot's length.

use std::ffi::OsStr;

use agent_checkpoint::root::ambient_authority;
use agent_checkpoint::{CapRoot, CaptureOptions};
use agent_checkpoint_mcp::ServerOptions;
use agent_checkpoint_store::Store;
use serde_json::json;

use crate::client::Client;
use crate::measure::{child_figures, git_init, random_bytes, vm_hwm};

/// Each file's size.
const FILE_BYTES: usize = 16 << 20;
/// The most the peak may grow, per byte of the snapshot (the goal is 1.6).
const MAX_RATIO: f64 = 2.0;

const PATHS: [&str; 2] = ["a.bin", "b.bin"];

/// What the child runs: one capture, then `peak <growth> snapshot <len>`.
#[tokio::test]
async fn child_capture_peak() {
    let (Some(dir), Some(mode)) = (
        std::env::var_os("MCP_PEAK_CHILD"),
        std::env::var("MCP_PEAK_MODE").ok(),
    ) else {
        return;
    };
    let dir = std::path::PathBuf::from(dir);
    let (growth, len) = if mode == "core" {
        let root = CapRoot::open(&dir, ambient_authority()).unwrap();
        let before = vm_hwm();
        let json = agent_checkpoint::capture(&root, PATHS, &CaptureOptions::default()).unwrap();
        (vm_hwm() - before, json.len())
    } else {
        let mut client = Client::start(&dir, &ServerOptions::default());
        client.initialize().await;
        let before = vm_hwm();
        let result = client
            .call("capture_checkpoint", json!({"paths": PATHS}))
            .await;
        let growth = vm_hwm() - before;
        assert_eq!(result["isError"], json!(false), "{result}");
        let id = result["structuredContent"]["checkpoint_id"]
            .as_str()
            .unwrap()
            .to_owned();
        client.finish().await;
        let len = Store::open(&dir).unwrap().undo_snapshot(&id).unwrap().len();
        (growth, len)
    };
    println!("figures: {growth} {len}");
}

/// The growth of the child's peak over the snapshot's length, in `mode`.
fn ratio(mode: &str) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    git_init(dir.path());
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    for path in PATHS {
        let bytes = random_bytes(FILE_BYTES, &mut seed);
        std::fs::write(dir.path().join(path), bytes).unwrap();
    }
    let words = child_figures(
        "capture_peak::child_capture_peak",
        &[
            ("MCP_PEAK_CHILD", dir.path().as_os_str()),
            ("MCP_PEAK_MODE", OsStr::new(mode)),
        ],
    );
    let growth: f64 = words[0].parse().unwrap();
    let len: f64 = words[1].parse().unwrap();
    let ratio = growth / len;
    eprintln!("capture peak ({mode}): {growth} bytes over a {len}-byte snapshot: {ratio:.2}x");
    ratio
}

#[test]
fn the_core_capture_peaks_below_twice_its_snapshot() {
    let ratio = ratio("core");
    assert!(
        ratio <= MAX_RATIO,
        "core capture peak {ratio:.2}x the snapshot"
    );
}

#[test]
fn the_mcp_capture_peaks_below_twice_its_snapshot() {
    let ratio = ratio("mcp");
    assert!(
        ratio <= MAX_RATIO,
        "MCP capture peak {ratio:.2}x the snapshot"
    );
}
