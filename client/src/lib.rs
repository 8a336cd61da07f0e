//! The inarow terminal client (being built).
