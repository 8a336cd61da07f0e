//! The inarow game server (being built).
