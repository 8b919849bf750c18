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
    /// `name(args)`, `...` after the last one expanding it.
    Call {
        name: String,
        name_range: Range,
        args: Vec<Expr>,
        expand: bool,
    },
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

/// A piece of a template.
#[derive(Clone, Debug)]
pub enum Part {
    /// Literal text, escapes resolved and strip markers applied.
    Lit(String, Range),
    /// `${expr}`.
    Interp(Expr, Range),
    /// `%{if}…%{else}…%{endif}`.
    If { cond: Expr, yes: Vec<Part>, no: Vec<Part>, range: Range },
    /// `%{for k, v in coll}…%{endfor}`.
    For {
        key_var: Option<String>,
        value_var: String,
        collection: Expr,
        body: Vec<Part>,
        range: Range,
    },
}

impl Part {
    pub fn range(&self) -> Range {
        match self {
            Part::Lit(_, r) | Part::Interp(_, r) => r.clone(),
            Part::If { range, .. } | Part::For { range, .. } => range.clone(),
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

/// Drops a tree without recursion: nested expressions are moved onto a work list first,
/// so a deep tree (10,000 nested brackets) cannot overflow the stack while it is freed.
impl Drop for Expr {
    fn drop(&mut self) {
        let mut work: Vec<Node> = Vec::new();
        take_children(&mut self.node, &mut work);
        while let Some(mut n) = work.pop() {
            take_children(&mut n, &mut work);
        }
    }
}

fn take_children(n: &mut Node, work: &mut Vec<Node>) {
    let mut push = |e: &mut Expr| work.push(std::mem::replace(&mut e.node, Node::Null));
    match n {
        Node::Tuple(items) => items.iter_mut().for_each(&mut push),
        Node::Object(items) => {
            for (k, v) in items.iter_mut() {
                if let Key::Expr(e) = k {
                    push(e);
                }
                push(v);
            }
        }
        Node::Parens(e) => push(e),
        Node::Call { args, .. } => args.iter_mut().for_each(&mut push),
        Node::Traversal { source, steps } => {
            push(source);
            for s in steps.iter_mut() {
                if let Step::Index(e, _) = s {
                    push(e);
                }
            }
        }
        Node::Splat { source, each } => {
            push(source);
            push(each);
        }
        Node::Unary { operand, .. } => push(operand),
        Node::Binary { first, rest } => {
            push(first);
            rest.iter_mut().for_each(|(_, e)| push(e));
        }
        Node::Conditional { cond, yes, no } => {
            push(cond);
            push(yes);
            push(no);
        }
        Node::For(f) => {
            push(&mut f.collection);
            if let Some(k) = &mut f.key {
                push(k);
            }
            push(&mut f.value);
            if let Some(c) = &mut f.cond {
                push(c);
            }
        }
        Node::Template { parts, .. } => take_parts(parts, work),
        Node::Null
        | Node::Bool(_)
        | Node::Number(_)
        | Node::Variable(_)
        | Node::SplatItem
        | Node::Invalid => {}
    }
}

fn take_parts(parts: &mut [Part], work: &mut Vec<Node>) {
    for p in parts {
        match p {
            Part::Lit(..) => {}
            Part::Interp(e, _) => work.push(std::mem::replace(&mut e.node, Node::Null)),
            Part::If { cond, yes, no, .. } => {
                work.push(std::mem::replace(&mut cond.node, Node::Null));
                take_parts(yes, work);
                take_parts(no, work);
            }
            Part::For { collection, body, .. } => {
                work.push(std::mem::replace(&mut collection.node, Node::Null));
                take_parts(body, work);
            }
        }
    }
}
