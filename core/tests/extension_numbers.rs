//! Numbers in members this build does not know (extensions) keep their
//! canonical text through any number of round trips (found by the
//! `snapshot_parse` fuzz target: `8.5e+98` came back `8.500000000000001e+98`
//! before serde_json parsed floats correctly rounded).

use agent_checkpoint::{ParseOptions, Snapshot};

#[test]
fn extension_numbers_round_trip_byte_for_byte() {
    let big = format!("84{}0", "9".repeat(96));
    for number in [
        big.as_str(),
        "8.5e+98",
        "0.1",
        "1e-300",
        "123456789012345678901234567890",
        "-0.0",
    ] {
        let text = format!(r#"{{"version":1,"entries":{{"a.py":null}},"x-ext":{{"n":{number}}}}}"#);
        let first = Snapshot::parse(&text, &ParseOptions::default()).expect("parses");
        let canonical = first.to_json();
        let again = Snapshot::parse(canonical.as_str(), &ParseOptions::default()).expect("again");
        assert_eq!(again, first, "{number}");
        assert_eq!(again.to_json(), canonical, "{number}");
    }
}
