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

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::quote;
use syn::{parse_macro_input, Attribute, Data, DeriveInput, Fields, LitStr, Type};

/// Implements `crate::jobs::settings::Settings` for a struct of named
/// fields (see the crate documentation).
#[proc_macro_derive(Settings, attributes(setting))]
pub fn derive_settings(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
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
        let value_name = match &options.value_name {
            Some(v) => quote!(::core::option::Option::Some(#v)),
            None => quote!(::core::option::Option::None),
        };
        let tag = match &options.tag {
            Some(v) => quote!(::core::option::Option::Some(#v)),
            None => quote!(::core::option::Option::None),
        };
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
            let check = match &options.check {
                Some(path) => quote!(::core::option::Option::Some(#path)),
                None => quote!(::core::option::Option::None),
            };
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
            } else if meta.path.is_ident("skip") {
                skip = true;
            } else if meta.input.peek(syn::Token![=]) {
                meta.value()?.parse::<syn::Expr>()?;
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|inner| {
                    if inner.input.peek(syn::Token![=]) {
                        inner.value()?.parse::<syn::Expr>()?;
                    }
                    Ok(())
                })?;
            }
            Ok(())
        })?;
    }
    Ok((key, skip))
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

/// `` [`a::b::C`] `` to `` `C` ``, `[text](target)` to `text`.
fn unlink(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let inner = &after[..close];
        let tail = &after[close + 1..];
        let link_end = tail
            .strip_prefix('(')
            .and_then(|t| t.find(')'))
            .map(|end| end + 2);
        match (
            inner.strip_prefix('`').and_then(|s| s.strip_suffix('`')),
            link_end,
        ) {
            (_, Some(end)) => {
                out.push_str(inner);
                rest = &tail[end..];
                continue;
            }
            (Some(code), None) => {
                out.push('`');
                out.push_str(code.rsplit("::").next().unwrap_or(code));
                out.push('`');
            }
            (None, None) => {
                out.push('[');
                out.push_str(inner);
                out.push(']');
            }
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}
