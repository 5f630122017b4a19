//! Builders and vector-file reading shared by the integration tests.

#![allow(dead_code)]

use stratagraph_server::wire::{
    Bytecode, Edge, Instruction, Path, Property, Vertex, VertexProperty, Wire,
};

/// The request id every vector uses.
pub const REQUEST_ID: [u8; 16] = [
    0x41, 0xd2, 0xe2, 0x8a, 0x20, 0xa4, 0x4a, 0xb0, 0xb3, 0x79, 0xd8, 0x10, 0xde, 0xde, 0x37, 0x86,
];

/// `name<TAB>payload` lines, comments skipped.
pub fn vectors(text: &str) -> Vec<(&str, &str)> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split_once('\t').unwrap_or((l, "")))
        .collect()
}

pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

pub fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn s(x: &str) -> Wire {
    Wire::String(x.to_owned())
}

pub fn vertex(id: Wire, label: &str) -> Wire {
    Wire::Vertex(Box::new(Vertex {
        id,
        label: label.to_owned(),
        properties: Vec::new(),
    }))
}

pub fn vertex_property(id: Wire, label: &str, value: Wire) -> VertexProperty {
    VertexProperty {
        id,
        label: label.to_owned(),
        value,
        properties: Vec::new(),
    }
}

pub fn property(key: &str, value: Wire) -> Property {
    Property {
        key: key.to_owned(),
        value,
    }
}

pub fn edge(id: Wire, label: &str, out_v: (Wire, &str), in_v: (Wire, &str)) -> Edge {
    Edge {
        id,
        label: label.to_owned(),
        in_v_id: in_v.0,
        in_v_label: in_v.1.to_owned(),
        out_v_id: out_v.0,
        out_v_label: out_v.1.to_owned(),
        properties: Vec::new(),
    }
}

pub fn path(labels: &[&[&str]], objects: Vec<Wire>) -> Wire {
    Wire::Path(Box::new(Path {
        labels: labels
            .iter()
            .map(|set| set.iter().map(|l| (*l).to_owned()).collect())
            .collect(),
        objects,
    }))
}

pub fn step(operator: &str, args: Vec<Wire>) -> Instruction {
    Instruction {
        operator: operator.to_owned(),
        args,
    }
}

pub fn bytecode(steps: Vec<Instruction>, sources: Vec<Instruction>) -> Wire {
    Wire::Bytecode(Box::new(Bytecode { steps, sources }))
}

pub fn p(name: &str, values: Vec<Wire>) -> Wire {
    Wire::P {
        name: name.to_owned(),
        values,
    }
}
