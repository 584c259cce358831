import SignInSimCLI

await SignInSimCLI.main()
