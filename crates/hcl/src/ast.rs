//! The syntax tree of native-syntax files: bodies, attributes, blocks and expressions,
//! every node with its byte range in the original text. Chains of the same kind (an
//! operator chain, a traversal) are kept flat, so no chain makes the tree deep.

/// A byte range of the source.
pub type Range = std::ops::Range<usize>;

#[derive(Clone, Debug, Default)]
pub struct Body {
    pub items: Vec<Item>,
    pub range: Range,
}

#[derive(Clone, Debug)]
pub enum Item {
    Attr(Attribute),
    Block(Block),
}

#[derive(Clone, Debug)]
pub struct Attribute {
    pub name: String,
    pub name_range: Range,
    pub expr: Expr,
    /// From the name to the end of the expression.
    pub range: Range,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub kind: String,
    pub kind_range: Range,
    pub labels: Vec<(String, Range)>,
    /// The opening brace (the type's range when the header has none, as in HCL).
    pub open_brace: Range,
    pub body: Body,
    /// From the type to the closing brace.
    pub range: Range,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub node: Node,
    pub range: Range,
}

#[derive(Clone, Debug)]
pub enum Node {
    Null,
    Bool(bool),
    /// A number literal as written (checked by the parser).
    Number(String),
    /// A quoted string or heredoc; `wrap` when it is exactly one interpolation (its value
    /// is the interpolated value itself, not a string).
    Template {
        parts: Vec<Part>,
        heredoc: bool,
        wrap: bool,
    },
    Tuple(Vec<Expr>),
    Object(Vec<(Key, Expr)>),
    Parens(Box<Expr>),
    /// A bare name: a variable, or a `for` expression's symbol.
    Variable(String),
    /// `name(args)`, `...` after the last one expanding it. Boxed: a call is the largest
    /// node, and every node (a number in a list of a million) is as large as the largest.
    Call(Box<Call>),
    /// `source.a[0]["k"].b`: steps taken one after the other.
    Traversal {
        source: Box<Expr>,
        steps: Vec<Step>,
    },
    /// `source[*].rest` or `source.*.rest`: `each` is evaluated for every element, which
    /// it refers to as [`Node::SplatItem`].
    Splat {
        source: Box<Expr>,
        each: Box<Expr>,
    },
    /// The element a splat's `each` expression is evaluated for.
    SplatItem,
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    /// `first op operand op operand…`, all of one precedence level, left to right.
    Binary {
        first: Box<Expr>,
        rest: Vec<(BinaryOp, Expr)>,
    },
    Conditional {
        cond: Box<Expr>,
        yes: Box<Expr>,
        no: Box<Expr>,
    },
    For(Box<ForExpr>),
    /// What a syntax error left: no value.
    Invalid,
}

/// `name(args)`, `...` after the last one expanding it.
#[derive(Clone, Debug)]
pub struct Call {
    pub name: String,
    pub name_range: Range,
    pub args: Vec<Expr>,
    pub expand: bool,
}

#[derive(Clone, Debug)]
pub enum Step {
    Attr(String, Range),
    /// `[expr]` (`legacy`: written `.N`).
    Index(Box<Expr>, Range),
}

/// An object key: a bare name (a literal string, unless it is a `for` symbol), or any
/// expression (in parentheses, or not a bare name).
#[derive(Clone, Debug)]
pub enum Key {
    Name(String, Range),
    Expr(Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    NotEq,
    Less,
    LessEq,
    Greater,
    GreaterEq,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

#[derive(Clone, Debug)]
pub struct ForExpr {
    pub key_var: Option<String>,
    pub value_var: String,
    pub collection: Expr,
    pub key: Option<Expr>,
    pub value: Expr,
    pub cond: Option<Expr>,
    pub group: bool,
    pub object: bool,
}

/// A piece of a template. The directives are boxed: every string literal holds a part,
/// and a part is as large as its largest kind.
#[derive(Clone, Debug)]
pub enum Part {
    /// Literal text, escapes resolved and strip markers applied.
    Lit(String, Range),
    /// `${expr}`.
    Interp(Expr, Range),
    /// `%{if}…%{else}…%{endif}`.
    If(Box<IfPart>),
    /// `%{for k, v in coll}…%{endfor}`.
    For(Box<ForPart>),
}

/// `%{if}…%{else}…%{endif}`.
#[derive(Clone, Debug)]
pub struct IfPart {
    pub cond: Expr,
    pub yes: Vec<Part>,
    pub no: Vec<Part>,
    pub range: Range,
}

/// `%{for k, v in coll}…%{endfor}`.
#[derive(Clone, Debug)]
pub struct ForPart {
    pub key_var: Option<String>,
    pub value_var: String,
    pub collection: Expr,
    pub body: Vec<Part>,
    pub range: Range,
}

impl Part {
    pub fn range(&self) -> Range {
        match self {
            Part::Lit(_, r) | Part::Interp(_, r) => r.clone(),
            Part::If(d) => d.range.clone(),
            Part::For(d) => d.range.clone(),
        }
    }
}

impl Expr {
    /// The literal text of a template made only of text.
    pub fn as_literal_str(&self) -> Option<String> {
        match &self.node {
            Node::Template { parts, wrap: false, .. } => {
                let mut s = String::new();
                for p in parts {
                    match p {
                        Part::Lit(t, _) => s.push_str(t),
                        _ => return None,
                    }
                }
                Some(s)
            }
            _ => None,
        }
    }
}

/// Drops a tree without recursion: nested expressions are taken out onto a work list
/// first, so a deep tree (10,000 nested brackets) cannot overflow the stack while it is
/// freed. A list is put on the work list whole and taken one element at a time, so the
/// list stays as long as the tree is deep, not as wide (a tuple of a million numbers),
/// and leaves are dropped where they are.
impl Drop for Expr {
    fn drop(&mut self) {
        if is_leaf(&self.node) {
            return;
        }
        let mut work = vec![Work::Node(std::mem::replace(&mut self.node, Node::Null))];
        while let Some(w) = work.pop() {
            match w {
                Work::Node(mut n) => take_children(&mut n, &mut work),
                Work::Exprs(mut it) => {
                    if let Some(mut e) = it.next() {
                        work.push(Work::Exprs(it));
                        take(&mut e, &mut work);
                    }
                }
                Work::Entries(mut it) => {
                    if let Some((k, mut v)) = it.next() {
                        work.push(Work::Entries(it));
                        if let Key::Expr(mut k) = k {
                            take(&mut k, &mut work);
                        }
                        take(&mut v, &mut work);
                    }
                }
                Work::Operands(mut it) => {
                    if let Some((_, mut e)) = it.next() {
                        work.push(Work::Operands(it));
                        take(&mut e, &mut work);
                    }
                }
                Work::Parts(mut it) => {
                    if let Some(p) = it.next() {
                        work.push(Work::Parts(it));
                        take_part(p, &mut work);
                    }
                }
            }
        }
    }
}

/// What is left to drop: a node whose children are still in it, or the rest of a list.
enum Work {
    Node(Node),
    Exprs(std::vec::IntoIter<Expr>),
    Entries(std::vec::IntoIter<(Key, Expr)>),
    Operands(std::vec::IntoIter<(BinaryOp, Expr)>),
    Parts(std::vec::IntoIter<Part>),
}

/// Whether dropping the node drops no expression (nothing to take out first).
fn is_leaf(n: &Node) -> bool {
    match n {
        Node::Null
        | Node::Bool(_)
        | Node::Number(_)
        | Node::Variable(_)
        | Node::SplatItem
        | Node::Invalid => true,
        Node::Template { parts, .. } => parts.iter().all(|p| matches!(p, Part::Lit(..))),
        Node::Tuple(items) => items.is_empty(),
        Node::Object(items) => items.is_empty(),
        _ => false,
    }
}

/// Moves an expression's node onto the work list, unless it is a leaf (dropped with it).
fn take(e: &mut Expr, work: &mut Vec<Work>) {
    if !is_leaf(&e.node) {
        work.push(Work::Node(std::mem::replace(&mut e.node, Node::Null)));
    }
}

fn take_children(n: &mut Node, work: &mut Vec<Work>) {
    match n {
        Node::Tuple(items) => work.push(Work::Exprs(std::mem::take(items).into_iter())),
        Node::Object(items) => work.push(Work::Entries(std::mem::take(items).into_iter())),
        Node::Parens(e) => take(e, work),
        Node::Call(c) => work.push(Work::Exprs(std::mem::take(&mut c.args).into_iter())),
        Node::Traversal { source, steps } => {
            take(source, work);
            for s in steps.iter_mut() {
                if let Step::Index(e, _) = s {
                    take(e, work);
                }
            }
        }
        Node::Splat { source, each } => {
            take(source, work);
            take(each, work);
        }
        Node::Unary { operand, .. } => take(operand, work),
        Node::Binary { first, rest } => {
            take(first, work);
            work.push(Work::Operands(std::mem::take(rest).into_iter()));
        }
        Node::Conditional { cond, yes, no } => {
            take(cond, work);
            take(yes, work);
            take(no, work);
        }
        Node::For(f) => {
            take(&mut f.collection, work);
            if let Some(k) = &mut f.key {
                take(k, work);
            }
            take(&mut f.value, work);
            if let Some(c) = &mut f.cond {
                take(c, work);
            }
        }
        Node::Template { parts, .. } => work.push(Work::Parts(std::mem::take(parts).into_iter())),
        Node::Null
        | Node::Bool(_)
        | Node::Number(_)
        | Node::Variable(_)
        | Node::SplatItem
        | Node::Invalid => {}
    }
}

/// A template part's expressions onto the work list (the part itself is dropped here).
fn take_part(p: Part, work: &mut Vec<Work>) {
    match p {
        Part::Lit(..) => {}
        Part::Interp(mut e, _) => take(&mut e, work),
        Part::If(mut d) => {
            take(&mut d.cond, work);
            work.push(Work::Parts(std::mem::take(&mut d.yes).into_iter()));
            work.push(Work::Parts(std::mem::take(&mut d.no).into_iter()));
        }
        Part::For(mut d) => {
            take(&mut d.collection, work);
            work.push(Work::Parts(std::mem::take(&mut d.body).into_iter()));
        }
    }
}
