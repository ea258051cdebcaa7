//! `#[derive(Settings)]`: a job configuration lists its settings for the
//! command line from the one place each is declared, its field. The field's
//! name (or its `#[serde(rename)]`) is the configuration key and, with `-`
//! for `_`, the long flag; its doc comment is the flag's help; its type
//! says how the flag's value is read. `#[setting(...)]` adds what a type
//! cannot say:
//!
//! - `skip`: no flag (the format version, settings with flags of their own);
//! - `flag = "name"`: a long flag other than the key;
//! - `value_name = "NAME"`: the placeholder in the help;
//! - `choices`: the type's `Choices` names; `choices = "a|b|c"`: these;
//!   `choices_in = "path::TO_CONST"`: the names of a `[&str; N]` constant;
//! - `parse`: the value is checked by the type's `FromStr`;
//! - `repeat`: a list given one value per flag (no comma splitting);
//! - `none_empty`: `none` alone is the empty list;
//! - `unique`: an item of a list given twice is kept once;
//! - `check = "path::to::fn"`: each item of a list checked by this
//!   `fn(&str) -> Result<(), String>`;
//! - `tag = "name"`: a group a command may pick (e.g. `rag ask`'s `api`);
//! - `default = EXPR`: the field's default (the type's `Default` without).
//!
//! The derive also implements `Default` from the fields' defaults, so a
//! setting's key, flag, help, type and default are one declaration.
//!
//! The generated `Settings::settings()` names `crate::jobs::settings`, so
//! the derive is for the corpus-eval crate itself.
//!
//! `#[shared_settings]` (above the derive) splices the settings several
//! jobs share, declared once in `shared.rs`, into the fields marked
//! `#[shared]`: their doc comment, serde and `#[setting]` attributes.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::parse::Parser;
use syn::{parse_macro_input, Attribute, Data, DeriveInput, Fields, LitStr, Type};

mod shared;

/// Implements `crate::jobs::settings::Settings` for a struct of named
/// fields (see the crate documentation).
#[proc_macro_derive(Settings, attributes(setting))]
pub fn derive_settings(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Splices the shared settings into a configuration's fields marked
/// `#[shared]` (or `#[shared(OPTIONS)]`: `#[setting]` options for this
/// job, such as `tag = "api"`). A marked field keeps its name, type and
/// place; its own doc lines, if any, follow the shared doc as a note for
/// this job; it takes no other attributes. Place it above
/// `#[derive(Settings)]`.
#[proc_macro_attribute]
pub fn shared_settings(attr: TokenStream, item: TokenStream) -> TokenStream {
    let attr = Tokens::from(attr);
    let mut input = parse_macro_input!(item as DeriveInput);
    let spliced = if attr.is_empty() {
        splice(&mut input)
    } else {
        Err(syn::Error::new_spanned(
            attr,
            "shared_settings takes no arguments",
        ))
    };
    match spliced {
        Ok(()) => quote!(#input).into(),
        Err(e) => e.into_compile_error().into(),
    }
}

/// Replaces each `#[shared]` field's attributes with its shared
/// declaration's (see [`shared_settings`]).
fn splice(input: &mut DeriveInput) -> syn::Result<()> {
    let Data::Struct(data) = &mut input.data else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "shared_settings: a struct only",
        ));
    };
    let Fields::Named(fields) = &mut data.fields else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "shared_settings: named fields only",
        ));
    };
    for field in &mut fields.named {
        let Some(marker) = field.attrs.iter().position(|a| a.path().is_ident("shared")) else {
            continue;
        };
        let marker = field.attrs.remove(marker);
        let Some(ident) = &field.ident else { continue };
        let Some(decl) = shared::shared(&ident.to_string()) else {
            return Err(syn::Error::new_spanned(
                ident,
                format!("shared_settings: no shared setting is named `{ident}` (see derive/src/shared.rs)"),
            ));
        };
        let ty = &field.ty;
        let written = shared::plain_type(&quote!(#ty).to_string());
        if written != shared::plain_type(decl.ty) {
            return Err(syn::Error::new_spanned(
                ty,
                format!(
                    "shared_settings: the shared setting `{ident}` is a `{}`",
                    decl.ty
                ),
            ));
        }
        if let Some(other) = field.attrs.iter().find(|a| !a.path().is_ident("doc")) {
            return Err(syn::Error::new_spanned(
                other,
                "shared_settings: a #[shared] field takes its attributes from the shared declaration; put this job's options in #[shared(...)]",
            ));
        }
        let note = std::mem::take(&mut field.attrs);
        let mut attrs = Attribute::parse_outer.parse2(decl.attrs)?;
        attrs.extend(note);
        if let syn::Meta::List(list) = &marker.meta {
            let options = &list.tokens;
            attrs.push(syn::parse_quote!(#[setting(#options)]));
        }
        field.attrs = attrs;
    }
    Ok(())
}

/// What `#[setting(...)]` says of one field.
#[derive(Default)]
struct Options {
    skip: bool,
    flag: Option<String>,
    value_name: Option<String>,
    choices: Option<Option<Vec<String>>>,
    choices_in: Option<syn::Path>,
    parse: bool,
    repeat: bool,
    none_empty: bool,
    unique: bool,
    check: Option<syn::Path>,
    tag: Option<String>,
    default: Option<syn::Expr>,
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new_spanned(name, "Settings: a struct only"));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new_spanned(name, "Settings: named fields only"));
    };
    // The keys are the fields' names (or their own renames): a container
    // rename would make every flag name a key the file does not take.
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let mut renamed = false;
        attr.parse_nested_meta(|meta| {
            renamed |= meta.path.is_ident("rename_all");
            skip_value(&meta)
        })?;
        if renamed {
            return Err(syn::Error::new_spanned(
                attr,
                "Settings: #[serde(rename_all)] is not supported; rename fields one by one",
            ));
        }
    }
    let mut entries = Vec::new();
    let mut defaults = Vec::new();
    for field in &fields.named {
        let Some(ident) = &field.ident else { continue };
        let options = options(&field.attrs)?;
        defaults.push(match &options.default {
            Some(expr) => quote!(#ident: #expr),
            None => quote!(#ident: ::core::default::Default::default()),
        });
        let (key, serde_skip) = serde_key(&field.attrs)?;
        if options.skip || serde_skip {
            continue;
        }
        let key = key.unwrap_or_else(|| ident.to_string());
        let flag = options
            .flag
            .clone()
            .unwrap_or_else(|| key.replace('_', "-"));
        let help = help_of(&field.attrs);
        if help.is_empty() {
            return Err(syn::Error::new_spanned(
                ident,
                "Settings: a setting needs a doc comment (its help)",
            ));
        }
        let inner = option_inner(&field.ty).unwrap_or(&field.ty);
        let kind = kind_of(&options, inner)?;
        let (value_name, tag) = (optional(&options.value_name), optional(&options.tag));
        entries.push(quote! {
            crate::jobs::settings::Setting {
                key: #key,
                flag: #flag,
                help: #help,
                value_name: #value_name,
                kind: #kind,
                tag: #tag,
            }
        });
    }
    let (imp, ty, wh) = input.generics.split_for_impl();
    Ok(quote! {
        impl #imp crate::jobs::settings::Settings for #name #ty #wh {
            fn settings() -> ::std::vec::Vec<crate::jobs::settings::Setting> {
                ::std::vec![#(#entries),*]
            }
        }

        impl #imp ::core::default::Default for #name #ty #wh {
            fn default() -> Self {
                Self { #(#defaults),* }
            }
        }
    })
}

/// The `Kind` of a field: from its options, else from its type.
fn kind_of(options: &Options, inner: &Type) -> syn::Result<Tokens> {
    let k = quote!(crate::jobs::settings::Kind);
    if let Some(choices) = &options.choices {
        return Ok(match choices {
            Some(list) => quote!(#k::Choice(&[#(#list),*])),
            None => quote!(#k::Choice(<#inner as crate::jobs::settings::Choices>::NAMES)),
        });
    }
    if let Some(path) = &options.choices_in {
        return Ok(quote!(#k::Choice(&#path)));
    }
    if options.parse {
        return Ok(quote!(#k::Parsed(|s: &str| {
            <#inner as ::core::str::FromStr>::from_str(s)
                .map(|_| ())
                .map_err(|e| e.to_string())
        })));
    }
    let last = last_segment(inner).unwrap_or_default();
    Ok(match last.as_str() {
        "bool" => quote!(#k::Switch),
        "u8" | "u16" | "u32" | "u64" | "usize" => quote!(#k::UInt),
        "i8" | "i16" | "i32" | "i64" | "isize" => quote!(#k::Int),
        "f32" | "f64" => quote!(#k::Float),
        "String" | "PathBuf" => quote!(#k::Text),
        "BTreeMap" | "HashMap" => quote!(#k::Bounds),
        "Vec" if options.repeat => quote!(#k::Repeat),
        "Vec" => {
            let (none_empty, unique) = (options.none_empty, options.unique);
            let check = optional(&options.check);
            quote!(#k::List { none_empty: #none_empty, unique: #unique, check: #check })
        }
        _ => {
            return Err(syn::Error::new_spanned(
                inner,
                "Settings: cannot tell how to read this type from a flag; add #[setting(choices)], #[setting(parse)] or #[setting(skip)]",
            ))
        }
    })
}

/// The last path segment's name of a type (`PathBuf` of `std::path::PathBuf`).
fn last_segment(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// `T` of `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

/// The options of a field's `#[setting(...)]` attributes.
fn options(attrs: &[Attribute]) -> syn::Result<Options> {
    let mut o = Options::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("setting")) {
        attr.parse_nested_meta(|meta| {
            let text = |meta: &syn::meta::ParseNestedMeta| -> syn::Result<String> {
                Ok(meta.value()?.parse::<LitStr>()?.value())
            };
            if meta.path.is_ident("skip") {
                o.skip = true;
            } else if meta.path.is_ident("flag") {
                o.flag = Some(text(&meta)?);
            } else if meta.path.is_ident("value_name") {
                o.value_name = Some(text(&meta)?);
            } else if meta.path.is_ident("choices") {
                o.choices = Some(if meta.input.peek(syn::Token![=]) {
                    Some(text(&meta)?.split('|').map(str::to_string).collect())
                } else {
                    None
                });
            } else if meta.path.is_ident("choices_in") {
                o.choices_in = Some(meta.value()?.parse::<LitStr>()?.parse::<syn::Path>()?);
            } else if meta.path.is_ident("parse") {
                o.parse = true;
            } else if meta.path.is_ident("repeat") {
                o.repeat = true;
            } else if meta.path.is_ident("none_empty") {
                o.none_empty = true;
            } else if meta.path.is_ident("unique") {
                o.unique = true;
            } else if meta.path.is_ident("check") {
                o.check = Some(meta.value()?.parse::<LitStr>()?.parse::<syn::Path>()?);
            } else if meta.path.is_ident("default") {
                o.default = Some(meta.value()?.parse::<syn::Expr>()?);
            } else if meta.path.is_ident("tag") {
                o.tag = Some(text(&meta)?);
            } else {
                return Err(meta.error("unknown #[setting] option"));
            }
            Ok(())
        })?;
    }
    Ok(o)
}

/// The field's `#[serde(rename = "...")]`, and whether serde skips it.
fn serde_key(attrs: &[Attribute]) -> syn::Result<(Option<String>, bool)> {
    let (mut key, mut skip) = (None, false);
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") && meta.input.peek(syn::Token![=]) {
                key = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_deserializing") {
                skip = true;
            } else {
                skip_value(&meta)?;
            }
            Ok(())
        })?;
    }
    Ok((key, skip))
}

/// Passes over the value of a serde option this derive does not read:
/// `= EXPR`, or a parenthesized list (`rename(serialize = "a")`).
fn skip_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip_value(&inner))?;
    }
    Ok(())
}

/// `Some(x)` or `None` as tokens.
fn optional(x: &Option<impl quote::ToTokens>) -> Tokens {
    match x {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

/// The help of a field: its doc comment as one paragraph per blank-line
/// separated block, rustdoc links (`` [`a::B`] ``) shown as `` `B` ``.
fn help_of(attrs: &[Attribute]) -> String {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        if let syn::Meta::NameValue(nv) = &attr.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                lines.push(s.value().trim().to_string());
            }
        }
    }
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in lines {
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
            continue;
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(&line);
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    unlink(&paragraphs.join("\n\n"))
}

/// Rustdoc's link syntax as plain text: `` [`a::b::C`] `` to `` `C` ``,
/// `[text](target)` and `[text][ref]` to `text`; code spans and other
/// brackets as written.
fn unlink(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['[', '`']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some(code) = rest.strip_prefix('`') {
            // A code span, copied as written (`[]` stays `[]`).
            let Some(end) = code.find('`') else { break };
            out.push_str(&rest[..end + 2]);
            rest = &rest[end + 2..];
            continue;
        }
        if let Some(end) = rest.strip_prefix("[`").and_then(|r| r.find("`]")) {
            let code = &rest[2..2 + end];
            out.push('`');
            out.push_str(code.rsplit("::").next().unwrap_or(code));
            out.push('`');
            rest = &rest[2 + end + 2..];
            continue;
        }
        let Some(close) = rest.find(']') else { break };
        let (inner, tail) = (&rest[1..close], &rest[close + 1..]);
        match group_len(tail, '(', ')').or_else(|| group_len(tail, '[', ']')) {
            Some(len) => {
                out.push_str(inner);
                rest = &tail[len..];
            }
            None => {
                out.push_str(&rest[..close + 1]);
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The length of the group `text` opens with `open`, up to its matching
/// `close` (nested pairs counted); None when `text` opens none or it is
/// not closed.
fn group_len(text: &str, open: char, close: char) -> Option<usize> {
    if !text.starts_with(open) {
        return None;
    }
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(i + c.len_utf8());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_become_plain_text_and_code_stays_as_written() {
        for (doc, shown) in [
            ("see [`crate::shard::Shard`]", "see `Shard`"),
            ("a [`Vec`] of them", "a `Vec` of them"),
            ("[the docs](https://x.org/a_(b)) say", "the docs say"),
            ("[the docs][ref] say", "the docs say"),
            ("`[]` for none", "`[]` for none"),
            ("index [`a[0]`] and `b[1]`", "index `a[0]` and `b[1]`"),
            ("[default: 4] and [x", "[default: 4] and [x"),
            ("unclosed `code [x", "unclosed `code [x"),
            ("no brackets at all", "no brackets at all"),
        ] {
            assert_eq!(unlink(doc), shown, "{doc}");
        }
    }

    #[test]
    fn the_help_is_the_doc_comment_by_paragraph() {
        let attrs: Vec<Attribute> = vec![
            syn::parse_quote!(#[doc = " First line"]),
            syn::parse_quote!(#[doc = " goes on."]),
            syn::parse_quote!(#[doc = ""]),
            syn::parse_quote!(#[doc = " Second [`a::B`]."]),
            syn::parse_quote!(#[serde(rename = "x")]),
        ];
        assert_eq!(help_of(&attrs), "First line goes on.\n\nSecond `B`.");
        assert_eq!(serde_key(&attrs).unwrap(), (Some("x".to_string()), false));
        let skipped: Vec<Attribute> = vec![syn::parse_quote!(#[serde(skip_deserializing)])];
        assert_eq!(serde_key(&skipped).unwrap(), (None, true));
    }

    #[test]
    fn a_container_rename_all_is_refused() {
        let input: DeriveInput = syn::parse_quote! {
            #[serde(rename_all = "camelCase")]
            struct C {
                /// A.
                a_b: bool,
            }
        };
        let e = expand(&input).unwrap_err().to_string();
        assert!(e.contains("rename_all"), "{e}");
        let input: DeriveInput = syn::parse_quote! {
            #[serde(rename_all(serialize = "camelCase"), deny_unknown_fields)]
            struct C {
                /// A.
                a_b: bool,
            }
        };
        let e = expand(&input).unwrap_err().to_string();
        assert!(e.contains("rename_all"), "{e}");
        let input: DeriveInput = syn::parse_quote! {
            #[serde(deny_unknown_fields, default, bound = "")]
            struct C {
                /// A.
                #[serde(rename(deserialize = "x"), skip_serializing_if = "f")]
                a_b: bool,
            }
        };
        assert!(expand(&input).is_ok());
    }

    #[test]
    fn a_shared_field_takes_the_declaration_and_keeps_its_note_and_options() {
        let mut input: DeriveInput = syn::parse_quote! {
            struct C {
                /// Own.
                pub seed: u64,
                /// Here, a note.
                #[shared(tag = "api")]
                pub fail_under: std::collections::BTreeMap<String, f64>,
                #[shared]
                pub out: PathBuf,
            }
        };
        splice(&mut input).unwrap();
        let Data::Struct(data) = &input.data else {
            unreachable!()
        };
        let fields: Vec<_> = data.fields.iter().collect();
        assert_eq!(help_of(&fields[0].attrs), "Own.");
        let help = help_of(&fields[1].attrs);
        assert!(help.starts_with("Quality gate: exit 3"), "{help}");
        assert!(help.ends_with("summary). Here, a note."), "{help}");
        let o = options(&fields[1].attrs).unwrap();
        assert_eq!(o.tag.as_deref(), Some("api"));
        assert_eq!(o.value_name.as_deref(), Some("METRIC=VALUE[,...]"));
        assert!(!fields[1].attrs.iter().any(|a| a.path().is_ident("shared")));
        let o = options(&fields[2].attrs).unwrap();
        assert!(o.default.is_some() && o.tag.is_none());
        assert_eq!(
            help_of(&fields[2].attrs),
            "Parent folder of the run folder."
        );
    }

    #[test]
    fn a_shared_field_of_another_type_name_or_with_its_own_attributes_is_refused() {
        for (input, says) in [
            (
                syn::parse_quote! { struct C { #[shared] pub out: Option<PathBuf> } },
                "is a `PathBuf`",
            ),
            (
                syn::parse_quote! { struct C { #[shared] pub outside: PathBuf } },
                "no shared setting is named `outside`",
            ),
            (
                syn::parse_quote! { struct C { #[shared] #[setting(skip)] pub out: PathBuf } },
                "put this job's options in #[shared(...)]",
            ),
        ] {
            let mut input: DeriveInput = input;
            let e = splice(&mut input).unwrap_err().to_string();
            assert!(e.contains(says), "{e}");
        }
    }

    #[test]
    fn a_type_is_compared_without_its_path() {
        assert_eq!(
            shared::plain_type("std :: collections :: BTreeMap < String , f64 >"),
            "BTreeMap<String,f64>"
        );
        assert_eq!(
            shared::plain_type(":: core :: option :: Option < crate :: shard :: Shard >"),
            "Option<Shard>"
        );
        for key in ["out", "shard", "fail_under", "match_level", "speaker_map"] {
            let decl = shared::shared(key).unwrap();
            assert!(Attribute::parse_outer.parse2(decl.attrs).is_ok(), "{key}");
        }
    }
}
