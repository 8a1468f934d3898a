//! The repository's sharing mode, as the store reads it: git's
//! `core.sharedRepository` from the repository's config, applied by
//! [`agent_checkpoint_naming::sharing::Sharing`] (the one mode policy) to
//! every file and directory the store creates: lock directories and files,
//! the push queue, undo-snapshot files.

pub use agent_checkpoint_naming::sharing::Sharing;

/// The sharing mode of `repo` (`core.sharedRepository`; private when unset).
pub(crate) fn of(repo: &gix::Repository) -> Sharing {
    let config = repo.config_snapshot();
    let file = config.plumbing();
    match file.raw_value("core.sharedRepository") {
        Ok(value) if !value.is_empty() => Sharing::from_config(Some(&value.to_string())),
        // Empty: `=` with nothing (git: umask), or no `=` at all, a
        // value-less boolean (git: group).
        Ok(_) if matches!(file.boolean("core.sharedRepository"), Ok(Some(true))) => Sharing::Group,
        _ => Sharing::Private,
    }
}
