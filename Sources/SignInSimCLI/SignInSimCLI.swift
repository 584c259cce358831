/// Entry point of the `signinsim` command.
public enum SignInSimCLI {
    public static func main() {}
}
