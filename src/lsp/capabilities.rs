//! What sextant tells a server it can do, and what a server can do: one
//! question per feature ([`LspClient::supports`]), answered from every form
//! a capability takes: absent, `false`, `true`, an options object, or a
//! dynamic registration (`client/registerCapability`) made later. Every
//! request asks it first, so a server that declines a feature gets no
//! request for it and the caller gets `unsupported`.

use lsp_types::{
    CallHierarchyServerCapability, ClientCapabilities, CodeActionOptions,
    CodeActionProviderCapability, HoverProviderCapability, ImplementationProviderCapability, OneOf,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncSaveOptions,
    TypeDefinitionProviderCapability,
};

use super::LspError;
use super::client::LspClient;

/// A feature sextant asks servers for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    Hover,
    Definition,
    TypeDefinition,
    Implementation,
    References,
    CallHierarchy,
    Completion,
    /// `completionItem/resolve`.
    CompletionResolve,
    Rename,
    /// `textDocument/prepareRename`.
    PrepareRename,
    DocumentSymbols,
    WorkspaceSymbols,
    /// `textDocument/diagnostic`.
    PullDiagnostics,
    /// `textDocument/didSave`.
    SaveNotifications,
    /// `textDocument/codeAction`.
    CodeActions,
    /// `codeAction/resolve`.
    CodeActionResolve,
}

impl Feature {
    /// The method a dynamic registration names for it.
    fn method(self) -> &'static str {
        match self {
            Feature::Hover => "textDocument/hover",
            Feature::Definition => "textDocument/definition",
            Feature::TypeDefinition => "textDocument/typeDefinition",
            Feature::Implementation => "textDocument/implementation",
            Feature::References => "textDocument/references",
            Feature::CallHierarchy => "textDocument/prepareCallHierarchy",
            Feature::Completion | Feature::CompletionResolve => "textDocument/completion",
            Feature::Rename | Feature::PrepareRename => "textDocument/rename",
            Feature::DocumentSymbols => "textDocument/documentSymbol",
            Feature::WorkspaceSymbols => "workspace/symbol",
            Feature::PullDiagnostics => "textDocument/diagnostic",
            Feature::SaveNotifications => "textDocument/didSave",
            Feature::CodeActions | Feature::CodeActionResolve => "textDocument/codeAction",
        }
    }

    /// What it is called in an `unsupported` answer.
    pub fn what(self) -> &'static str {
        match self {
            Feature::Hover => "hover",
            Feature::Definition => "go to definition",
            Feature::TypeDefinition => "go to type definition",
            Feature::Implementation => "go to implementation",
            Feature::References => "find references",
            Feature::CallHierarchy => "call hierarchy",
            Feature::Completion => "completion",
            Feature::CompletionResolve => "resolving completions",
            Feature::Rename | Feature::PrepareRename => "rename",
            Feature::DocumentSymbols => "document symbols",
            Feature::WorkspaceSymbols => "workspace symbols",
            Feature::PullDiagnostics => "pull diagnostics",
            Feature::SaveNotifications => "save notifications",
            Feature::CodeActions => "code actions",
            Feature::CodeActionResolve => "resolving code actions",
        }
    }
}

/// `Some(true)`/`Some(false)`, or an options object (which means yes).
fn declared<T>(capability: Option<&OneOf<bool, T>>) -> bool {
    matches!(capability, Some(OneOf::Left(true) | OneOf::Right(_)))
}

impl LspClient {
    /// Whether the server does `feature`: declared at initialize, or
    /// registered since.
    pub(super) fn supports(&self, feature: Feature) -> bool {
        self.declares(feature) || self.registered(feature)
    }

    /// `supports`, or the `unsupported` error to answer with.
    pub(super) fn require(&self, feature: Feature) -> Result<(), LspError> {
        if self.supports(feature) {
            Ok(())
        } else {
            Err(LspError::Unsupported {
                server: self.server().to_string(),
                what: feature.what().to_string(),
            })
        }
    }

    /// What the server declared in its initialize answer.
    fn declares(&self, feature: Feature) -> bool {
        let capabilities = &self.capabilities;
        match feature {
            Feature::Hover => matches!(
                capabilities.hover_provider,
                Some(HoverProviderCapability::Simple(true) | HoverProviderCapability::Options(_))
            ),
            Feature::Definition => declared(capabilities.definition_provider.as_ref()),
            Feature::TypeDefinition => matches!(
                capabilities.type_definition_provider,
                Some(
                    TypeDefinitionProviderCapability::Simple(true)
                        | TypeDefinitionProviderCapability::Options(_)
                )
            ),
            Feature::Implementation => matches!(
                capabilities.implementation_provider,
                Some(
                    ImplementationProviderCapability::Simple(true)
                        | ImplementationProviderCapability::Options(_)
                )
            ),
            Feature::References => declared(capabilities.references_provider.as_ref()),
            Feature::CallHierarchy => matches!(
                capabilities.call_hierarchy_provider,
                Some(
                    CallHierarchyServerCapability::Simple(true)
                        | CallHierarchyServerCapability::Options(_)
                )
            ),
            Feature::Completion => capabilities.completion_provider.is_some(),
            Feature::CompletionResolve => capabilities
                .completion_provider
                .as_ref()
                .is_some_and(|options| options.resolve_provider == Some(true)),
            Feature::Rename => declared(capabilities.rename_provider.as_ref()),
            Feature::PrepareRename => matches!(
                &capabilities.rename_provider,
                Some(OneOf::Right(options)) if options.prepare_provider == Some(true)
            ),
            Feature::DocumentSymbols => declared(capabilities.document_symbol_provider.as_ref()),
            Feature::WorkspaceSymbols => declared(capabilities.workspace_symbol_provider.as_ref()),
            Feature::PullDiagnostics => capabilities.diagnostic_provider.is_some(),
            Feature::CodeActions => matches!(
                capabilities.code_action_provider,
                Some(
                    CodeActionProviderCapability::Simple(true)
                        | CodeActionProviderCapability::Options(_)
                )
            ),
            Feature::CodeActionResolve => matches!(
                &capabilities.code_action_provider,
                Some(CodeActionProviderCapability::Options(CodeActionOptions {
                    resolve_provider: Some(true),
                    ..
                }))
            ),
            Feature::SaveNotifications => match &capabilities.text_document_sync {
                Some(TextDocumentSyncCapability::Options(options)) => match &options.save {
                    Some(TextDocumentSyncSaveOptions::Supported(yes)) => *yes,
                    Some(TextDocumentSyncSaveOptions::SaveOptions(_)) => true,
                    None => false,
                },
                Some(TextDocumentSyncCapability::Kind(kind)) => *kind != TextDocumentSyncKind::NONE,
                None => false,
            },
        }
    }

    /// Whether the server registered `feature` since it started (with the
    /// options the feature needs: a completion registration that resolves,
    /// a rename registration that prepares).
    fn registered(&self, feature: Feature) -> bool {
        let state = self.shared.state();
        state
            .registrations
            .iter()
            .filter(|registration| registration.method == feature.method())
            .any(|registration| {
                let option = |name: &str| {
                    registration
                        .options
                        .as_ref()
                        .and_then(|options| options.get(name))
                        .and_then(serde_json::Value::as_bool)
                        == Some(true)
                };
                match feature {
                    Feature::CompletionResolve => option("resolveProvider"),
                    Feature::PrepareRename => option("prepareProvider"),
                    Feature::CodeActionResolve => option("resolveProvider"),
                    _ => true,
                }
            })
    }
}

/// What sextant tells servers it can do.
pub(super) fn client_capabilities() -> ClientCapabilities {
    use lsp_types::*;
    let all_kinds: Vec<SymbolKind> = (1..=26)
        .filter_map(|n| serde_json::from_value(serde_json::json!(n)).ok())
        .collect();
    ClientCapabilities {
        general: Some(GeneralClientCapabilities {
            position_encodings: Some(vec![
                PositionEncodingKind::UTF8,
                PositionEncodingKind::UTF16,
            ]),
            ..Default::default()
        }),
        window: Some(WindowClientCapabilities {
            work_done_progress: Some(true),
            ..Default::default()
        }),
        workspace: Some(WorkspaceClientCapabilities {
            // Only while a code action's command runs: its edits are
            // captured into the action's patch, never written (see
            // `lsp::actions`); declined at any other time.
            apply_edit: Some(true),
            // Rename answers may create, move and delete files (a Rust
            // module's file moves with it): sextant applies them as one
            // patch (`lsp/refactor.rs`).
            workspace_edit: Some(WorkspaceEditClientCapabilities {
                document_changes: Some(true),
                resource_operations: Some(vec![
                    ResourceOperationKind::Create,
                    ResourceOperationKind::Rename,
                    ResourceOperationKind::Delete,
                ]),
                ..Default::default()
            }),
            configuration: Some(true),
            workspace_folders: Some(true),
            did_change_watched_files: Some(DidChangeWatchedFilesClientCapabilities {
                dynamic_registration: Some(true),
                relative_pattern_support: Some(true),
            }),
            symbol: Some(WorkspaceSymbolClientCapabilities {
                symbol_kind: Some(SymbolKindCapability {
                    value_set: Some(all_kinds.clone()),
                }),
                ..Default::default()
            }),
            ..Default::default()
        }),
        text_document: Some(TextDocumentClientCapabilities {
            synchronization: Some(TextDocumentSyncClientCapabilities {
                did_save: Some(true),
                ..Default::default()
            }),
            document_symbol: Some(DocumentSymbolClientCapabilities {
                hierarchical_document_symbol_support: Some(true),
                symbol_kind: Some(SymbolKindCapability {
                    value_set: Some(all_kinds),
                }),
                ..Default::default()
            }),
            hover: Some(HoverClientCapabilities {
                content_format: Some(vec![MarkupKind::Markdown, MarkupKind::PlainText]),
                ..Default::default()
            }),
            publish_diagnostics: Some(PublishDiagnosticsClientCapabilities {
                version_support: Some(true),
                related_information: Some(true),
                ..Default::default()
            }),
            diagnostic: Some(DiagnosticClientCapabilities::default()),
            definition: Some(GotoCapability {
                link_support: Some(true),
                ..Default::default()
            }),
            type_definition: Some(GotoCapability {
                link_support: Some(true),
                ..Default::default()
            }),
            implementation: Some(GotoCapability {
                link_support: Some(true),
                ..Default::default()
            }),
            references: Some(DynamicRegistrationClientCapabilities::default()),
            call_hierarchy: Some(CallHierarchyClientCapabilities::default()),
            completion: Some(CompletionClientCapabilities {
                completion_item: Some(CompletionItemCapability {
                    // Labels and details are shown, never inserted: no
                    // snippet syntax wanted in them.
                    snippet_support: Some(false),
                    documentation_format: Some(vec![MarkupKind::PlainText, MarkupKind::Markdown]),
                    resolve_support: Some(CompletionItemCapabilityResolveSupport {
                        properties: vec!["detail".into(), "documentation".into()],
                    }),
                    label_details_support: Some(true),
                    ..Default::default()
                }),
                completion_item_kind: Some(CompletionItemKindCapability {
                    value_set: Some(
                        (1..=25)
                            .filter_map(|n| serde_json::from_value(serde_json::json!(n)).ok())
                            .collect(),
                    ),
                }),
                ..Default::default()
            }),
            rename: Some(RenameClientCapabilities {
                prepare_support: Some(true),
                ..Default::default()
            }),
            code_action: Some(CodeActionClientCapabilities {
                code_action_literal_support: Some(CodeActionLiteralSupport {
                    code_action_kind: CodeActionKindLiteralSupport {
                        value_set: [
                            "quickfix",
                            "refactor",
                            "refactor.extract",
                            "refactor.inline",
                            "refactor.rewrite",
                            "source",
                            "source.organizeImports",
                            "source.fixAll",
                        ]
                        .map(String::from)
                        .to_vec(),
                    },
                }),
                is_preferred_support: Some(true),
                disabled_support: Some(true),
                data_support: Some(true),
                resolve_support: Some(CodeActionCapabilityResolveSupport {
                    properties: vec!["edit".into()],
                }),
                ..Default::default()
            }),
            ..Default::default()
        }),
        experimental: Some(serde_json::json!({ "serverStatusNotification": true })),
    }
}
