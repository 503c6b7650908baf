module example.notes {
    requires transitive dev.ringfuse; // NotesFs implements PathFileSystem: its users need ringfuse's types too
    exports example.notes;
}
