package dev.ringfuse.sys;
final class Placeholder {}
