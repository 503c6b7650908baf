module example.hello {
    requires dev.ringfuse;
}
