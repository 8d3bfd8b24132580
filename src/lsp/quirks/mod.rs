//! What only some servers need, one file per quirk. Each is switched on by
//! a key of the language's entry in `languages.toml` (`checks_on_save`,
//! `tsserver_requests`, `loose_files`, `compile_database`) or by the
//! built-in servers' names (TypeScript's choice of server), so the
//! generic supervisor, client and request
//! modules never name a server: they ask the quirk, which answers for the
//! servers it concerns and leaves the others alone.

pub mod cargo_features;
pub mod cargo_projects;
pub mod check_on_save;
pub mod compile_database;
pub mod loose_files;
pub mod member_completion;
pub mod tsconfig;
pub mod tsserver;
pub mod typescript_server;
