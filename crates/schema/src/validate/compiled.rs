//! The compiled form of a schema: one [`Node`] per subschema, its keywords in document order
//! ([`Keyword`]) and the same keywords arranged for the fast path ([`FastNode`]).

use super::equality::json_equal;
use super::formats::Format;
use super::number::{Decimal, Num};
use super::pattern::Pattern;
use super::ValidatorOptions;
use serde_json::{Number, Value};
use std::collections::HashSet;

pub(super) type NodeId = usize;

/// The seven JSON Schema types as bits.
pub(super) const T_NULL: u8 = 1;
pub(super) const T_BOOLEAN: u8 = 2;
pub(super) const T_OBJECT: u8 = 4;
pub(super) const T_ARRAY: u8 = 8;
pub(super) const T_NUMBER: u8 = 16;
pub(super) const T_INTEGER: u8 = 32;
pub(super) const T_STRING: u8 = 64;

/// A string as the fast comparisons see it first: its length and up to 8 of its bytes, which
/// determine a string of at most 8 bytes completely; longer ones also compare `[8..]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Tag {
    pub(super) len: usize,
    pub(super) head: u64,
}

impl Tag {
    #[inline]
    pub(super) fn of(s: &str) -> Tag {
        let b = s.as_bytes();
        let n = b.len();
        let u32_at = |i: usize| {
            let w: [u8; 4] = b[i..i + 4].try_into().unwrap_or_default();
            u64::from(u32::from_le_bytes(w))
        };
        let head = if n >= 8 {
            u64::from_le_bytes(b[..8].try_into().unwrap_or_default())
        } else if n >= 4 {
            // The first and the last four bytes overlap and cover all of them.
            u32_at(0) | u32_at(n - 4) << 32
        } else if n > 0 {
            u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16
        } else {
            0
        };
        Tag { len: n, head }
    }

    /// `a` (whose tag is `self`) equals `b`, whose tag is known to be equal too.
    #[inline]
    fn rest_equal(&self, a: &str, b: &str) -> bool {
        self.len <= 8 || a.as_bytes()[8..] == b.as_bytes()[8..]
    }
}

/// `enum`, with its string members listed apart (with their tags) so a string is compared only
/// with strings, mostly without `memcmp`.
pub(super) struct EnumSet {
    pub(super) values: Vec<Value>,
    pub(super) strings: Vec<(Tag, String)>,
    pub(super) only_strings: bool,
    pub(super) message: String,
}

impl EnumSet {
    #[inline]
    pub(super) fn contains_str(&self, s: &str) -> bool {
        let t = Tag::of(s);
        self.strings.iter().any(|(u, x)| *u == t && t.rest_equal(s, x))
    }

    pub(super) fn contains(&self, value: &Value) -> bool {
        match value {
            Value::String(s) => self.contains_str(s),
            _ if self.only_strings => false,
            _ => self.values.iter().any(|v| json_equal(v, value)),
        }
    }
}

pub(super) enum Keyword {
    /// Type bits plus the message (which lists the names in schema order).
    Type(u8, String),
    Enum(Box<EnumSet>),
    /// The value and the message.
    Const(Value, String),
    Properties(Vec<(String, NodeId)>),
    Required(Vec<String>),
    /// `additionalProperties: false`; holds the sibling `properties` names.
    NoAdditionalProperties(Vec<String>),
    Items(NodeId),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    MinLength(u64),
    MaxLength(u64),
    Pattern(Box<Pattern>),
    Format(Format),
    Minimum(Number),
    Maximum(Number),
    ExclusiveMinimum(Number),
    ExclusiveMaximum(Number),
    MultipleOf(Number, Decimal),
    AnyOf(Vec<NodeId>),
    Ref(NodeId),
}

impl Keyword {
    /// Applicators that evaluate the same value and may insert defaults into it.
    pub(super) fn is_in_place_applicator(&self) -> bool {
        matches!(self, Keyword::Ref(_) | Keyword::AnyOf(_))
    }

    /// The schema keyword, as issues name it.
    pub(super) fn name(&self) -> &'static str {
        match self {
            Keyword::Type(..) => "type",
            Keyword::Enum(_) => "enum",
            Keyword::Const(..) => "const",
            Keyword::Properties(_) => "properties",
            Keyword::Required(_) => "required",
            Keyword::NoAdditionalProperties(_) => "additionalProperties",
            Keyword::Items(_) => "items",
            Keyword::MinItems(_) => "minItems",
            Keyword::MaxItems(_) => "maxItems",
            Keyword::UniqueItems => "uniqueItems",
            Keyword::MinLength(_) => "minLength",
            Keyword::MaxLength(_) => "maxLength",
            Keyword::Pattern(_) => "pattern",
            Keyword::Format(_) => "format",
            Keyword::Minimum(_) => "minimum",
            Keyword::Maximum(_) => "maximum",
            Keyword::ExclusiveMinimum(_) => "exclusiveMinimum",
            Keyword::ExclusiveMaximum(_) => "exclusiveMaximum",
            Keyword::MultipleOf(..) => "multipleOf",
            Keyword::AnyOf(_) => "anyOf",
            Keyword::Ref(_) => "$ref",
        }
    }
}

#[derive(Default)]
pub(super) struct Node {
    /// Keywords in document order (annotations and `$defs` omitted).
    pub(super) keywords: Vec<Keyword>,
    /// `(property, default)` for each `properties` subschema carrying `default`.
    pub(super) defaults: Vec<(String, Value)>,
    /// Some keyword is `$ref` or `anyOf`: evaluate those first (see [`Compiled::eval`]).
    pub(super) has_applicators: bool,
    /// The same keywords arranged for the read-only fast path ([`Compiled::fast`]).
    pub(super) fast: FastNode,
    /// For each of `defaults`, what inserting it costs ([`DefaultCost`]); computed only when
    /// [`Compiled::virtual_defaults`].
    pub(super) default_costs: Vec<DefaultCost>,
}

/// What evaluating an inserted default against its subschema costs in the slow path: `spends`
/// units of budget (its issues are dropped, and with no `$ref`/`anyOf` in the schema the walk is
/// fixed), provided no compound value in it sits deeper than `reach` levels below the object
/// it is inserted into plus the instance depth limit (else the count would differ).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct DefaultCost {
    pub(super) spends: u64,
    pub(super) reach: usize,
}

pub(super) struct Compiled {
    pub(super) schema: Value,
    pub(super) options: ValidatorOptions,
    pub(super) nodes: Vec<Node>,
    pub(super) root: NodeId,
    /// Some node has defaults; otherwise values are never modified and anyOf needs no copies.
    pub(super) has_defaults: bool,
    /// Every property name that has a `default` somewhere (the anyOf quick check cannot know
    /// whether such a property will be filled in, so it does not require it).
    pub(super) defaulted_names: HashSet<String>,
    /// No `$ref` or `anyOf` is reachable from the root, so each instance value is checked by
    /// exactly one node, and defaults can be accounted for without inserting them (see
    /// [`Compiled::fast`] and [`Compiled::collect`]).
    pub(super) virtual_defaults: bool,
}

impl Compiled {
    pub(super) fn node_count(&self) -> u64 {
        self.nodes.len().max(1) as u64
    }
}

/// A `$ref` or `anyOf`, in keyword order.
pub(super) enum App {
    Ref(NodeId),
    AnyOf(Box<[NodeId]>),
}

/// `properties`, `additionalProperties: false` and `required` of one node, checked in one pass
/// over the instance's properties.
pub(super) struct ObjChecks {
    /// Sorted by name, with their tags (the same order).
    pub(super) props: Box<[(Box<str>, NodeId)]>,
    pub(super) tags: Box<[Tag]>,
    pub(super) no_additional: bool,
    /// Bit `i` (for `i < 64`): `props[i]` is required (and has no default in this node, which
    /// would always fill it in).
    pub(super) required_mask: u64,
    /// Other required names without a default in this node.
    pub(super) required_other: Box<[Box<str>]>,
    /// When the node's defaults are found missing from the pass's bits (see
    /// [`FastNode::early_defaults`]): `(bit of props, index in the node's defaults)`.
    pub(super) defaults: Box<[(u64, usize)]>,
    pub(super) default_mask: u64,
}

impl ObjChecks {
    #[inline]
    pub(super) fn find(&self, key: &str) -> Option<usize> {
        if self.props.len() <= 16 {
            let t = Tag::of(key);
            self.tags.iter().position(|u| *u == t).filter(|&i| t.rest_equal(key, &self.props[i].0)).or_else(|| {
                // Tags of distinct names may collide only for names longer than 8 bytes.
                if t.len > 8 {
                    self.props.iter().position(|(n, _)| **n == *key)
                } else {
                    None
                }
            })
        } else {
            self.props.binary_search_by(|(n, _)| (**n).cmp(key)).ok()
        }
    }
}

pub(super) struct ArrChecks {
    pub(super) items: Option<NodeId>,
    pub(super) min: u64,
    pub(super) max: u64,
    pub(super) unique: bool,
}

/// A string keyword.
pub(super) enum StrCheck {
    MinLength(u64),
    MaxLength(u64),
    /// Index of the `pattern` keyword.
    Pattern(u8),
    Format(Format),
    /// Index of an `enum` whose members are all strings (the node's `types` then admit strings
    /// only: nothing else can be a member).
    Enum(u8),
}

/// A number keyword, its bound converted once.
pub(super) enum NumCheck {
    Minimum(Num),
    Maximum(Num),
    ExclusiveMinimum(Num),
    ExclusiveMaximum(Num),
    /// Index of the `multipleOf` keyword.
    MultipleOf(u8),
}

pub(super) const ALL_TYPES: u8 = T_NULL | T_BOOLEAN | T_OBJECT | T_ARRAY | T_NUMBER | T_INTEGER | T_STRING;

/// One node's keywords arranged for the fast path: the `type` bits, the applicators, and the
/// remaining checks grouped by the value type they constrain.
pub(super) struct FastNode {
    pub(super) types: u8,
    /// No defaults to look up on entry, no applicators, `enum` or `const`: a value needs only
    /// the checks of its own type.
    pub(super) leaf: bool,
    /// Look the node's defaults up on entry, before the applicators (which must see them
    /// inserted); otherwise the object pass's bits tell which are missing, after it.
    pub(super) early_defaults: bool,
    pub(super) apps: Box<[App]>,
    pub(super) obj: Option<Box<ObjChecks>>,
    pub(super) arr: Option<Box<ArrChecks>>,
    pub(super) strs: Box<[StrCheck]>,
    pub(super) nums: Box<[NumCheck]>,
    /// Indices of `enum` and `const`.
    pub(super) any_kw: Box<[u8]>,
}

impl Default for FastNode {
    fn default() -> Self {
        FastNode {
            types: ALL_TYPES,
            leaf: true,
            early_defaults: false,
            apps: Box::new([]),
            obj: None,
            arr: None,
            strs: Box::new([]),
            nums: Box::new([]),
            any_kw: Box::new([]),
        }
    }
}
