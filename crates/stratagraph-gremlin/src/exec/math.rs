//! The expressions of `math()`: numbers, variables (`_` for the current
//! object, any other name a step label), `+ - * / % ^`, unary minus, and
//! the functions TinkerPop's `math()` offers (those of exp4j). Results are
//! doubles, as in TinkerPop.

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    Num(f64),
    Var(String),
    Neg(Box<Expr>),
    Bin(char, Box<Expr>, Box<Expr>),
    Call(String, Box<Expr>),
}

const FUNCS: &[&str] = &[
    "abs", "acos", "asin", "atan", "cbrt", "ceil", "cos", "cosh", "exp", "expm1", "floor", "log",
    "log10", "log1p", "log2", "signum", "sin", "sinh", "sqrt", "tan", "tanh",
];

/// Parses `text`, or says what is wrong and where.
pub(crate) fn parse(text: &str) -> Result<Expr, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    let e = p.sum()?;
    p.ws();
    if p.i < p.s.len() {
        return Err(format!(
            "math(): unexpected {:?} at offset {} of {text:?}",
            p.s[p.i] as char, p.i
        ));
    }
    Ok(e)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut e = self.product()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            self.i += 1;
            e = Expr::Bin(c as char, Box::new(e), Box::new(self.product()?));
        }
        Ok(e)
    }

    fn product(&mut self) -> Result<Expr, String> {
        let mut e = self.unary()?;
        while let Some(c @ (b'*' | b'/' | b'%')) = self.peek() {
            self.i += 1;
            e = Expr::Bin(c as char, Box::new(e), Box::new(self.unary()?));
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        match self.peek() {
            Some(b'-') => {
                self.i += 1;
                Ok(Expr::Neg(Box::new(self.unary()?)))
            }
            Some(b'+') => {
                self.i += 1;
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Expr, String> {
        let base = self.atom()?;
        if self.peek() == Some(b'^') {
            self.i += 1;
            // Right-associative, binding tighter than unary minus on its left.
            let exp = self.unary()?;
            return Ok(Expr::Bin('^', Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Expr, String> {
        self.depth += 1;
        if self.depth > 200 {
            return Err("math(): expression nested too deeply".into());
        }
        let r = self.atom_inner();
        self.depth -= 1;
        r
    }

    fn atom_inner(&mut self) -> Result<Expr, String> {
        match self.peek() {
            Some(b'(') => {
                self.i += 1;
                let e = self.sum()?;
                if self.peek() != Some(b')') {
                    return Err(format!("math(): expected ')' at offset {}", self.i));
                }
                self.i += 1;
                Ok(e)
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => {
                let start = self.i;
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_digit() || self.s[self.i] == b'.')
                {
                    self.i += 1;
                }
                if self.i < self.s.len() && matches!(self.s[self.i], b'e' | b'E') {
                    self.i += 1;
                    if self.i < self.s.len() && matches!(self.s[self.i], b'+' | b'-') {
                        self.i += 1;
                    }
                    while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
                        self.i += 1;
                    }
                }
                let text = String::from_utf8_lossy(&self.s[start..self.i]);
                text.parse()
                    .map(Expr::Num)
                    .map_err(|_| format!("math(): {text:?} is not a number"))
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.i;
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_alphanumeric() || self.s[self.i] == b'_')
                {
                    self.i += 1;
                }
                let name = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                if FUNCS.contains(&name.as_str()) && self.peek() == Some(b'(') {
                    self.i += 1;
                    let arg = self.sum()?;
                    if self.peek() != Some(b')') {
                        return Err(format!("math(): expected ')' after {name}'s argument"));
                    }
                    self.i += 1;
                    return Ok(Expr::Call(name, Box::new(arg)));
                }
                // `sin _`: a function applied to the operand that follows
                // it, as exp4j allows.
                if FUNCS.contains(&name.as_str())
                    && self
                        .peek()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
                {
                    let arg = self.power()?;
                    return Ok(Expr::Call(name, Box::new(arg)));
                }
                Ok(Expr::Var(name))
            }
            Some(c) => Err(format!(
                "math(): unexpected {:?} at offset {}",
                c as char, self.i
            )),
            None => Err("math(): the expression ends too soon".into()),
        }
    }
}

impl Expr {
    /// The variables in order of first appearance.
    pub(crate) fn variables(&self) -> Vec<String> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut Vec<String>) {
        match self {
            Expr::Num(_) => {}
            Expr::Var(v) => {
                if !out.contains(v) {
                    out.push(v.clone());
                }
            }
            Expr::Neg(e) | Expr::Call(_, e) => e.collect(out),
            Expr::Bin(_, a, b) => {
                a.collect(out);
                b.collect(out);
            }
        }
    }

    /// The value with `var` giving each variable's.
    pub(crate) fn eval(&self, var: &dyn Fn(&str) -> f64) -> f64 {
        match self {
            Expr::Num(n) => *n,
            Expr::Var(v) => var(v),
            Expr::Neg(e) => -e.eval(var),
            Expr::Bin(op, a, b) => {
                let (x, y) = (a.eval(var), b.eval(var));
                match op {
                    '+' => x + y,
                    '-' => x - y,
                    '*' => x * y,
                    '/' => x / y,
                    '%' => x % y,
                    _ => x.powf(y),
                }
            }
            Expr::Call(f, e) => {
                let x = e.eval(var);
                match f.as_str() {
                    "abs" => x.abs(),
                    "acos" => x.acos(),
                    "asin" => x.asin(),
                    "atan" => x.atan(),
                    "cbrt" => x.cbrt(),
                    "ceil" => x.ceil(),
                    "cos" => x.cos(),
                    "cosh" => x.cosh(),
                    "exp" => x.exp(),
                    "expm1" => x.exp_m1(),
                    "floor" => x.floor(),
                    "log" => x.ln(),
                    "log10" => x.log10(),
                    "log1p" => x.ln_1p(),
                    "log2" => x.log2(),
                    "signum" => {
                        if x == 0.0 || x.is_nan() {
                            x
                        } else {
                            x.signum()
                        }
                    }
                    "sin" => x.sin(),
                    "sinh" => x.sinh(),
                    "sqrt" => x.sqrt(),
                    "tan" => x.tan(),
                    _ => x.tanh(),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_and_variables() {
        let e = parse("_ + 2 * b ^ 2 - sqrt(16) / -2").unwrap();
        assert_eq!(e.variables(), ["_", "b"]);
        let v = e.eval(&|n| if n == "_" { 1.0 } else { 3.0 });
        assert_eq!(v, 1.0 + 2.0 * 9.0 + 2.0);
        assert!(parse("(1 + 2").is_err());
        assert!(parse("1 +").is_err());
    }
}
