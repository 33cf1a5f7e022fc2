//! `#[derive(kilat_row::FromRow)]`: maps a row of sqlx's `Any` driver onto a struct with named fields.
//!
//! It is what the server's store used `sqlx::FromRow` for, and nothing more. sqlx's own derive lives in `sqlx-macros`,
//! which builds sqlx's PostgreSQL and SQLite drivers a second time for the host, whatever features the server turns
//! on (a cold release build paid for it twice: the bundled SQLite, sqlx-postgres, tokio). This crate needs only `syn`.
//!
//! Each field is read with `row.try_get("<field name>")`. Field attributes, as in sqlx:
//! - `#[row(rename = "column")]` reads another column name;
//! - `#[row(try_from = "Type")]` reads `Type` and converts it with `TryFrom`; a failed conversion is
//!   `sqlx::Error::ColumnDecode` naming the column;
//! - `#[row(flatten)]` reads the field as a `FromRow` of its own from the same row.
//!
//! The generated impl is for `sqlx::any::AnyRow` only: the store reads every database through the `Any` driver.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as TokenStream2;
use quote::quote;
use syn::{Data, DeriveInput, Fields, LitStr, Type, parse_macro_input, spanned::Spanned};

#[proc_macro_derive(FromRow, attributes(row))]
pub fn derive_from_row(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// What a field's `#[row(...)]` attributes ask for.
#[derive(Default)]
struct FieldAttrs {
    rename: Option<LitStr>,
    try_from: Option<Type>,
    flatten: bool,
}

fn field_attrs(field: &syn::Field) -> syn::Result<FieldAttrs> {
    let mut attrs = FieldAttrs::default();
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("row")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("flatten") {
                attrs.flatten = true;
            } else if meta.path.is_ident("rename") {
                attrs.rename = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("try_from") {
                let name: LitStr = meta.value()?.parse()?;
                attrs.try_from = Some(name.parse()?);
            } else {
                return Err(
                    meta.error("expected `flatten`, `rename = \"...\"` or `try_from = \"Type\"`")
                );
            }
            Ok(())
        })?;
    }
    if attrs.flatten && (attrs.rename.is_some() || attrs.try_from.is_some()) {
        return Err(syn::Error::new(
            field.span(),
            "`flatten` reads the whole row: it cannot be combined with `rename` or `try_from`",
        ));
    }
    Ok(attrs)
}

fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            input.span(),
            "FromRow derives only for structs",
        ));
    };
    let Fields::Named(fields) = &data.fields else {
        return Err(syn::Error::new(
            input.span(),
            "FromRow derives only for structs with named fields",
        ));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "FromRow does not derive for generic structs",
        ));
    }

    let mut reads = Vec::with_capacity(fields.named.len());
    for field in &fields.named {
        let ident = field.ident.as_ref().expect("named fields have names");
        let ty = &field.ty;
        let attrs = field_attrs(field)?;
        let column = attrs.rename.unwrap_or_else(|| {
            LitStr::new(ident.to_string().trim_start_matches("r#"), ident.span())
        });
        let read = if attrs.flatten {
            quote! { <#ty as ::sqlx::FromRow<'r, ::sqlx::any::AnyRow>>::from_row(row)? }
        } else if let Some(stored) = attrs.try_from {
            quote! {{
                let stored: #stored = ::sqlx::Row::try_get(row, #column)?;
                <#ty as ::core::convert::TryFrom<#stored>>::try_from(stored).map_err(|e| {
                    ::sqlx::Error::ColumnDecode {
                        index: ::std::string::String::from(#column),
                        source: ::std::boxed::Box::new(e),
                    }
                })?
            }}
        } else {
            quote! { ::sqlx::Row::try_get(row, #column)? }
        };
        reads.push(quote! { #ident: #read });
    }

    let name = &input.ident;
    Ok(quote! {
        #[automatically_derived]
        impl<'r> ::sqlx::FromRow<'r, ::sqlx::any::AnyRow> for #name {
            fn from_row(row: &'r ::sqlx::any::AnyRow) -> ::core::result::Result<Self, ::sqlx::Error> {
                ::core::result::Result::Ok(Self { #(#reads,)* })
            }
        }
    })
}
