//! `define_rpc!`, the macro behind [`crate::ipc`]'s command table, and the TypeScript writer
//! it feeds. See [`crate::ipc`] for why it exists and how the shell uses it.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use ts_rs::{Config, TypeVisitor, TS};

/// How a command's arguments travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// A JSON object, one key per argument (camelCase), which is what Tauri sends by default.
    Json,
    /// The raw bytes of the request body; the arguments (strings only) travel as headers
    /// named `x-<field in kebab-case>`, percent-encoded. For large binary payloads (a pasted
    /// 5 MB image is not turned into a JSON array of numbers).
    Raw,
}

/// One entry of the table, as the Rust shell sees it: implemented by the argument struct the
/// macro declares for the command. The shell's command takes the struct (`Args<A>`) and
/// returns `Result<A::Response, A::Error>`, so it cannot drift from the table.
pub trait Command: serde::de::DeserializeOwned {
    /// The command's name, as `invoke` sends it and `generate_handler!` registers it.
    const NAME: &'static str;
    const BODY: Body;
    /// The argument fields (snake_case, in declaration order).
    const FIELDS: &'static [&'static str];
    /// What a successful call answers with.
    type Response;
    /// What a failed call rejects with (`IpcError`, or `ProfileError` for the profile editor).
    type Error;
}

/// A [`Body::Json`] command's arguments from the request's JSON object.
pub fn read_json<A: Command>(body: &serde_json::Value) -> Result<A, String> {
    A::deserialize(body).map_err(|e| format!("invalid arguments for {}: {e}", A::NAME))
}

/// A [`Body::Raw`] command's arguments from the request's headers (`header` answers a
/// header's value by name); each is percent-decoded (what `encodeURIComponent` did).
pub fn read_headers<A: Command>(header: impl Fn(&str) -> Option<String>) -> Result<A, String> {
    let fields: serde_json::Map<String, serde_json::Value> = A::FIELDS
        .iter()
        .filter_map(|f| Some((camel(f), percent_decode(&header(&raw_header(f))?).into())))
        .collect();
    A::deserialize(serde_json::Value::Object(fields))
        .map_err(|e| format!("invalid arguments for {}: {e}", A::NAME))
}

/// `%XX` sequences decoded; anything else kept as it is.
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The header a [`Body::Raw`] command's `field` travels in.
pub fn raw_header(field: &str) -> String {
    format!("x-{}", field.replace('_', "-"))
}

/// `session_id` → `sessionId` (what serde's `rename_all = "camelCase"` does to a field).
pub fn camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Declares the argument structs, their [`Command`] impls, the list of names and the
/// description the TypeScript writer reads. Each entry:
///
/// ```text
/// /// Docs (copied to the struct and to the TypeScript function).
/// name(NameArgs { field: Type, ... }) -> Result<Response, Error>;
/// name(NameArgs { field: String }) -> Result<Response, Error>, Raw;
/// ```
macro_rules! define_rpc {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident ( $Args:ident { $( $(#[$fattr:meta])* $field:ident : $fty:ty ),* $(,)? } )
            -> Result<$Resp:ty, $Err:ty> $(, $body:ident)? ;
    )*) => {
        $(
            $(#[doc = $doc])*
            #[doc = ""]
            #[doc = concat!("The arguments of `", stringify!($name), "`.")]
            #[derive(Debug, serde::Deserialize, ts_rs::TS)]
            #[serde(rename_all = "camelCase")]
            pub struct $Args {
                $( $(#[$fattr])* pub $field: $fty, )*
            }

            impl $crate::ipc_macro::Command for $Args {
                const NAME: &'static str = stringify!($name);
                const BODY: $crate::ipc_macro::Body = define_rpc!(@body $($body)?);
                const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];
                type Response = $Resp;
                type Error = $Err;
            }
        )*

        /// Every command of the table, in its order.
        pub const COMMAND_NAMES: &[&str] = &[$(stringify!($name)),*];

        fn described(cfg: &ts_rs::Config) -> Vec<$crate::ipc_macro::Described> {
            vec![$(
                $crate::ipc_macro::Described::of::<$Args>(
                    cfg,
                    &[$($doc),*],
                    &[$(<$fty as ts_rs::TS>::IS_OPTION),*],
                )
            ),*]
        }
    };
    (@body) => { $crate::ipc_macro::Body::Json };
    (@body $body:ident) => { $crate::ipc_macro::Body::$body };
}

/// What the TypeScript writer needs to know about one command.
pub struct Described {
    name: &'static str,
    body: Body,
    docs: Vec<String>,
    args_ident: String,
    args_decl: String,
    /// (snake name, optional when trailing)
    fields: Vec<(&'static str, bool)>,
    response: String,
    error: String,
    imports: BTreeSet<String>,
}

/// Collects the named types a TypeScript expression refers to (for the imports).
struct Names<'a>(&'a Config, &'a mut BTreeSet<String>);

impl TypeVisitor for Names<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if T::output_path().is_some() {
            self.1.insert(T::ident(self.0));
        }
    }
}

fn names_in<T: TS + 'static + ?Sized>(cfg: &Config, out: &mut BTreeSet<String>) {
    let mut v = Names(cfg, out);
    v.visit::<T>();
    T::visit_generics(&mut v);
}

impl Described {
    pub fn of<A>(cfg: &Config, docs: &[&str], optional: &[bool]) -> Self
    where
        A: Command + TS + 'static,
        A::Response: TS + 'static,
        A::Error: TS + 'static,
    {
        let mut imports = BTreeSet::new();
        A::visit_dependencies(&mut Names(cfg, &mut imports));
        names_in::<A::Response>(cfg, &mut imports);
        names_in::<A::Error>(cfg, &mut imports);
        // An argument may be left out only when every one after it may be too.
        let mut trailing = true;
        let mut fields: Vec<(&'static str, bool)> = A::FIELDS
            .iter()
            .zip(optional)
            .rev()
            .map(|(f, &opt)| {
                trailing &= opt;
                (*f, trailing)
            })
            .collect();
        fields.reverse();
        Self {
            name: A::NAME,
            body: A::BODY,
            docs: docs.iter().map(|d| d.trim().to_string()).collect(),
            args_ident: A::ident(cfg),
            args_decl: A::decl(cfg),
            fields,
            response: A::Response::name(cfg),
            error: A::Error::ident(cfg),
            imports,
        }
    }

    fn write_docs(&self, out: &mut String) {
        let docs: Vec<&str> = self.docs.iter().map(String::as_str).collect();
        let text = docs.join("\n").trim().to_string();
        if text.is_empty() {
            return;
        }
        out.push_str("/**\n");
        for line in text.lines() {
            let _ = writeln!(out, " *{}{}", if line.is_empty() { "" } else { " " }, line);
        }
        out.push_str(" */\n");
    }

    fn write_function(&self, out: &mut String) {
        self.write_docs(out);
        let mut params: Vec<String> = Vec::new();
        if self.body == Body::Raw {
            params.push("body: Uint8Array".into());
        }
        for (field, optional) in &self.fields {
            let c = camel(field);
            let q = if *optional { "?" } else { "" };
            params.push(format!("{c}{q}: {}[\"{c}\"]", self.args_ident));
        }
        let args: Vec<String> = self
            .fields
            .iter()
            .map(|(field, optional)| {
                let c = camel(field);
                if *optional {
                    format!("{c}: {c} ?? null")
                } else {
                    c
                }
            })
            .collect();
        let call = match self.body {
            Body::Json if args.is_empty() => String::new(),
            Body::Json => format!(", {{ {} }}", args.join(", ")),
            Body::Raw => {
                let headers: Vec<String> = self
                    .fields
                    .iter()
                    .map(|(f, _)| {
                        format!("\"{}\": encodeURIComponent({})", raw_header(f), camel(f))
                    })
                    .collect();
                format!(", body, {{ headers: {{ {} }} }}", headers.join(", "))
            }
        };
        let _ = writeln!(
            out,
            "export function {}({}): Promise<{}> {{\n  return invokeCommand<{}>(\"{}\", \"{}\"{});\n}}\n",
            camel(self.name),
            params.join(", "),
            self.response,
            self.response,
            self.name,
            self.error,
            call,
        );
    }
}

/// The generated TypeScript module: the argument types, one typed function per command, the
/// command names and which error each command rejects with. `local` are the types declared
/// in the table's module itself (written here, not imported from `ui/src/generated/`).
pub fn typescript(described: &[Described], local: &[(String, String)]) -> String {
    let mut imports = BTreeSet::new();
    for d in described {
        imports.extend(d.imports.iter().cloned());
    }
    for (ident, _) in local {
        imports.remove(ident);
    }
    let mut out = String::new();
    out.push_str(
        "// Generated from src-tauri/crates/agentdesk-protocol/src/ipc.rs (the IPC command table).\n\
         // Do not edit: UPDATE_BINDINGS=1 cargo test -p agentdesk-protocol --test ipc_commands\n\
         /* eslint-disable */\n",
    );
    let tauri_types: Vec<&str> = ["Channel"]
        .into_iter()
        .filter(|t| imports.remove(*t))
        .collect();
    if !tauri_types.is_empty() {
        let _ = writeln!(
            out,
            "import type {{ {} }} from \"@tauri-apps/api/core\";",
            tauri_types.join(", ")
        );
    }
    for ident in &imports {
        let _ = writeln!(
            out,
            "import type {{ {ident} }} from \"../generated/{ident}\";"
        );
    }
    out.push_str("import { invokeCommand } from \"./client\";\n\n");
    for (_, decl) in local {
        let _ = writeln!(out, "export {decl}\n");
    }
    for d in described {
        let _ = writeln!(out, "export {}\n", d.args_decl);
    }
    for d in described {
        d.write_function(&mut out);
    }
    out.push_str("/** Every command, as `invoke` names it. */\nexport const COMMANDS = [\n");
    for d in described {
        let _ = writeln!(out, "  \"{}\",", d.name);
    }
    out.push_str("] as const;\n\nexport type CommandName = (typeof COMMANDS)[number];\n\n");
    out.push_str("/** What each command rejects with (normalised by `ipc/client.ts`). */\n");
    out.push_str("export type CommandError = {\n");
    for d in described {
        let _ = writeln!(out, "  {}: {};", d.name, d.error);
    }
    out.push_str("};\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_headers() {
        assert_eq!(camel("session_id"), "sessionId");
        assert_eq!(camel("sha256"), "sha256");
        assert_eq!(camel("on_batch"), "onBatch");
        assert_eq!(raw_header("file_name"), "x-file-name");
    }

    #[test]
    fn names_are_percent_decoded() {
        assert_eq!(
            percent_decode("screen%20shot%C3%A9.png"),
            "screen shoté.png"
        );
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
        assert_eq!(percent_decode("%4"), "%4");
    }
}
