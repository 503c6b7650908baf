module example.hellopath {
    requires dev.ringfuse;
}
