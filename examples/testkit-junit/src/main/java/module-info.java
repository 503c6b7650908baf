module example.notes {
    requires dev.ringfuse;
    exports example.notes;
}
