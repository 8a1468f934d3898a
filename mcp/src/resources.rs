//! Checkpoints as MCP resources: `checkpoint://<id>`, listed (newest
//! first) and readable as the JSON `inspect_checkpoint` returns (the
//! checkpoint's summary and its captured paths).

use rmcp::model::{
    ListResourcesResult, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use rmcp::ErrorData;

use crate::outcome::blocking;
use crate::server::CheckpointServer;
use crate::tools::inspect;

/// The scheme of checkpoint resources.
pub(crate) const SCHEME: &str = "checkpoint://";

/// The most resources listed (the newest ones).
const MAX_LISTED: usize = 1000;

const MIME: &str = "application/json";

/// The template clients may fill in: `checkpoint://{checkpoint_id}`.
pub(crate) fn template() -> ResourceTemplate {
    ResourceTemplate::new(format!("{SCHEME}{{checkpoint_id}}"), "checkpoint")
        .with_description(
            "A checkpoint: its sessions, files and the paths its undo snapshot holds.",
        )
        .with_mime_type(MIME)
}

/// Every checkpoint (the newest ones) as a resource.
pub(crate) async fn list(server: &CheckpointServer) -> Result<ListResourcesResult, ErrorData> {
    let state = server.state.clone();
    let (entries, _) = blocking(move || state.keeper.list(MAX_LISTED, false))
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    let resources = entries
        .into_iter()
        .map(|entry| {
            let files = entry.files_touched.len();
            Resource::new(
                format!("{SCHEME}{}", entry.checkpoint_id),
                entry.checkpoint_id,
            )
            .with_description(format!(
                "Checkpoint of {files} file(s), {}",
                entry.created_at
            ))
            .with_mime_type(MIME)
        })
        .collect();
    Ok(ListResourcesResult::with_all_items(resources))
}

/// Reads `checkpoint://<id>`.
pub(crate) async fn read(
    server: &CheckpointServer,
    uri: &str,
) -> Result<ReadResourceResult, ErrorData> {
    let Some(id) = uri.strip_prefix(SCHEME).map(str::to_owned) else {
        return Err(ErrorData::resource_not_found(
            format!("no resource {uri:?}: resources are {SCHEME}<checkpoint id>"),
            None,
        ));
    };
    let state = server.state.clone();
    let inspected = blocking(move || inspect(&state, &id)).await.map_err(|e| {
        ErrorData::resource_not_found(
            format!("cannot read {uri:?}: {e}"),
            Some(serde_json::json!({ "code": e.code().as_str() })),
        )
    })?;
    let text = serde_json::to_string_pretty(&inspected)
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::TextResourceContents {
            uri: uri.to_owned(),
            mime_type: Some(MIME.to_owned()),
            text,
            meta: None,
        },
    ]))
}
