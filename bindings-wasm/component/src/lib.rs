//! WASI preview-2 component of agent-checkpoint (placeholder until its issue lands).
