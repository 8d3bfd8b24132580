//! The file system side: the workspace sandbox, walking, grep, text reading
//! and patches. Produces model values and plain data; knows nothing of MCP.

pub mod grep;
pub mod patch;
pub mod text;
pub mod walk;
pub mod workspace;
