import SignInSimCLI

SignInSimCLI.main()
