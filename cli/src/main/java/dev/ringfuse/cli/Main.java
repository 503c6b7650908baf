package dev.ringfuse.cli;

/** Entry point of the ringfuse command. */
public final class Main {
    public static void main(String[] args) {
        System.exit(2);
    }
}
