//! The worktree id a shadow branch name hashes: `""` for the main worktree,
//! the name of a linked worktree's directory under `.git/worktrees/`.

use crate::Store;

/// The worktree id of `repo`: `""` for the main worktree (or a bare
/// repository), else the name git gave the linked worktree (the last
/// component of its git dir, `<common dir>/worktrees/<name>`).
pub(crate) fn of_repo(repo: &gix::Repository) -> String {
    let git_dir = repo.git_dir();
    let common = repo.common_dir();
    if git_dir == common {
        return String::new();
    }
    let under_worktrees = git_dir
        .parent()
        .and_then(|p| p.file_name())
        .is_some_and(|n| n == "worktrees");
    match git_dir.file_name() {
        Some(name) if under_worktrees => name.to_string_lossy().into_owned(),
        _ => String::new(),
    }
}

/// The worktree id of the working tree `store` was opened in (see
/// [`agent_checkpoint_naming::refs::shadow_branch_name`]).
pub fn worktree_id(store: &Store) -> String {
    of_repo(&store.local())
}
