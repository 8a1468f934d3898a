//! Node bindings of agent-checkpoint (placeholder until its issue lands).
