package dev.ringfuse.testkit;
final class Placeholder {}
