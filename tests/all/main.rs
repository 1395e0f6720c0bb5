#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

//! Copycat's integration tests, against a real Kafka broker
//! (`KAFKA_BOOTSTRAP`, started by `just test`). One binary, a module per area.

mod authoring;
mod bad_input;
mod batch_consume;
mod chaos;
mod cli;
mod client;
mod cluster;
mod config_defs;
mod conformance;
mod console;
mod converters;
mod datagen;
mod delivery;
mod distributed;
mod dynamic;
mod embedded;
mod engine;
mod errors;
mod exactly_once;
mod file;
mod hdfs;
mod hostile;
mod http_sink;
mod kafka_connect_dead_letter_queue;
mod kafka_connect_offsets;
mod kafka_connect_side_by_side;
mod kafka_connect_transforms;
mod limits;
mod metrics;
mod oauth;
mod offsets;
mod postgres_chaos;
mod postgres_sink;
mod postgres_source;
mod rebalance;
mod rest;
mod rest_clients;
mod rest_compat;
mod sandbox;
mod secure;
mod shared_producer;
mod swap;
mod topic_creation;
mod topic_log;
mod transform_components;
mod transforms;
mod typed;
mod typed_shipped;
