//! Link settings napi-rs needs for a Node addon (undefined `napi_*` symbols
//! are resolved by the Node process that loads the library).

fn main() {
    napi_build::setup();
}
