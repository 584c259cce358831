/// PEM fixtures made with the OpenSSL 3.0 command line; none of these keys protects anything.
enum Fixtures {
    /// RFC 7515 A.3 key as SEC 1, converted by `openssl ec`.
    static let rfcP256SEC1 = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEII6bEJ5xkJi/mASH3x9dd+nLKWBuvtImO19XwhPfhPSyoAoGCCqGSM49
        AwEHoUQDQgAEf83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEXH8UTNG72b
        focs3+257rn0s2ldbqkLJK2KRiMohYjlrQ==
        -----END EC PRIVATE KEY-----
        """

    /// RFC 7515 A.3 key as PKCS #8: `openssl pkcs8 -topk8 -nocrypt` of the SEC 1 form.
    static let rfcP256PKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgjpsQnnGQmL+YBIff
        H1136cspYG6+0iY7X1fCE9+E9LKhRANCAAR/zc4ncPbEXUGDy+5v20t7WAczNXvp
        7xO6z248e9FURcfxRM0bvZt+hyzf7bnuufSzaV1uqQskrYpGIyiFiOWt
        -----END PRIVATE KEY-----
        """

    /// RFC 7515 A.3 public key as SPKI: `openssl pkey -pubout` of the SEC 1 form.
    static let rfcP256SPKI = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEf83OJ3D2xF1Bg8vub9tLe1gHMzV7
        6e8Tus9uPHvRVEXH8UTNG72bfocs3+257rn0s2ldbqkLJK2KRiMohYjlrQ==
        -----END PUBLIC KEY-----
        """

    /// RFC 7515 A.2 key as PKCS #1, converted by `openssl rsa -traditional`.
    static let rfcRSAPKCS1 = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd/wWJcyQoTbji9k0
        l8W26mPddxHmfHQp+Vaw+4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL+yRT+SFd2lZS+pC
        gNMsD1W/YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb/7OMg0LOL+bSf63kpaSHSX
        ndS5z5rexMdbBYUsLA9e+KXBdQOS+UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uD
        Zlxvb3qCo5ZwKh9kG4LT6/I5IhlJH7aGhyxXFvUK+DWNmoudF8NAco9/h9iaGNj8
        q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQIDAQABAoIBABKucaRpzQorw35S
        bEUAVx8dYXUdZOlJcHtiWQ+dC6V8ljxAHj/PLyzTveyI5QO/xkObCyjIL303l2cf
        UhPu2MFaJdjVzqACXuOrLot/eSFvxjvqVidTtAZExqFRJ9mylUVAoLvhowVWmC1O
        n95fZCXxTUtxNEG1Xcc7m0rtzJKs45J+N/V9DP1edYH6USyPSWGp6wuA+KgHRnKK
        Vf9GRx80JQY7nVNkL17eHoTWEwga+lwi0FEoW9Y7lDtWXYmKBWhUE+U8PGxlJf8f
        40493HDw1WRQ/aSLoS4QTp3rn7gYgeHEvfJdkkf0UMhlknlo53M09EFPdadQ4TlU
        bjqKc50CgYEA4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH/5IB3jw3bcxGn6QLvnE
        tfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw/Py5PJdTJNPY8cQn7ouZ2KKDcmnPG
        BY5t7yLc1QlQ5xHdwW1VhvKn+nXqhJTBgIPgtldC+KDV5z+y2XDwGUcCgYEAuQPE
        fgmVtjL0Uyyx88GZFF1fOunH3+7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYs
        p1ZSe7zFYHj7C6ul7TjeLQeZD/YwD66t62wDmpe/HlB+TnBA+njbglfIsRLtXlnD
        zQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdcCgYAHAp9XcCSrn8wVkMVkKdb7
        DOX4IKjzdahm+ctDAJN4O/y7OW5FKebvUjdAIt2GuoTZ71iTG+7F0F+lP88jtjP4
        U4qe7VHoewl4MKOfXZKTe+YCS1XbNvfgwJ3Ltyl1OH9hWvu2yza7q+d5PCsDzqtm
        27kxuvULVeya+TEdAB1ijQKBgQCH/3r6YrVH/uCWGy6bzV1nGNOdjKc9tmkfOJmN
        54dxdixdpozCQ6U4OxZrsj3FcOhHBsqAHvX2uuYjagqvo3cOj1TRqNocX40omfCC
        Mx3bD1yPPf/6TI2XECva/ggqEY2mYzmIiA5LVVmc5nrybr+lssFKneeyxN2Wq93S
        0iJMdQKBgCGHewxzoa1r8ZMD0LETNrToK423K377UCYqXfg5XMclbrjPbEC3YI1Z
        NqMtuhdBJqUnBi6tjKMF+34Xf0CUN8ncuXGO2CAYvO8PdyCixHX52ybaDjy1FtCE
        6yUXjoKNXKvUm7MWGsAYH6f4IegOetN5NvmUMFStCSkh7ixZLkN1
        -----END RSA PRIVATE KEY-----
        """

    /// RFC 7515 A.2 key as PKCS #8: `openssl pkcs8 -topk8 -nocrypt` of the PKCS #1 form.
    static let rfcRSAPKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCh+BYK4uPJtGXO
        jS1lYmM2K5J9vinh8CR3/BYlzJChNuOL2TSXxbbqY913EeZ8dCn5VrD7io8ImtxL
        aYk8wTM/U+3QGbh3hCUv7JFP5IV3aVlL6kKA0ywPVb9ilE8TA5a8bpvfbr3SvaNn
        juygxmj3AbONv/s4yDQs4v5tJ/reSlpIdJed1LnPmt7Ex1sFhSwsD174pcF1A5L5
        ROjtZMEQxrZHYJqkeDrrnGya11UxMFBji4NmXG9veoKjlnAqH2QbgtPr8jkiGUkf
        toaHLFcW9Qr4NY2ai50Xw0Byj3+H2JoY2PyrZ62EWQwuz3WTOTY8BwNNb2BvniHg
        VFbK5emhAgMBAAECggEAEq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyW
        PEAeP88vLNO97IjlA7/GQ5sLKMgvfTeXZx9SE+7YwVol2NXOoAJe46sui395IW/G
        O+pWJ1O0BkTGoVEn2bKVRUCgu+GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzj
        kn439X0M/V51gfpRLI9JYanrC4D4qAdGcopV/0ZHHzQlBjudU2QvXt4ehNYTCBr6
        XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl/x/jTj3ccPDVZFD9pIuhLhBOneufuBiB
        4cS98l2SR/RQyGWSeWjnczT0QU91p1DhOVRuOopznQKBgQDgHMQQ60imZV1URk0K
        pLttoLhyt3SmqdEf/kgHePDdtzEafpAu+cS191R2JiuoF2yzWXnwFDcqGigp5BNr
        0AHQfD8/Lk8l1Mk09jxxCfui5nYooNyac8YFjm3vItzVCVDnEd3BbVWG8qf6deqE
        lMGAg+C2V0L4oNXnP7LZcPAZRwKBgQC5A8R+CZW2MvRTLLHzwZkUXV866cff7tx6
        kqa0finGG0KgeqlaZPxgCZnFp7AeAcCMtiynVlJ7vMVgePsLq6XtON4tB5kP9jAP
        rq3rbAOal78eUH5OcED6eNuCV8ixEu1eWcPNCS/l1OW1EnXUEoEHKl54Xrrz2uNw
        kgMTP1FZ1wKBgAcCn1dwJKufzBWQxWQp1vsM5fggqPN1qGb5y0MAk3g7/Ls5bkUp
        5u9SN0Ai3Ya6hNnvWJMb7sXQX6U/zyO2M/hTip7tUeh7CXgwo59dkpN75gJLVds2
        9+DAncu3KXU4f2Fa+7bLNrur53k8KwPOq2bbuTG69QtV7Jr5MR0AHWKNAoGBAIf/
        evpitUf+4JYbLpvNXWcY052Mpz22aR84mY3nh3F2LF2mjMJDpTg7FmuyPcVw6EcG
        yoAe9fa65iNqCq+jdw6PVNGo2hxfjSiZ8IIzHdsPXI89//pMjZcQK9r+CCoRjaZj
        OYiIDktVWZzmevJuv6WywUqd57LE3Zar3dLSIkx1AoGAIYd7DHOhrWvxkwPQsRM2
        tOgrjbcrfvtQJipd+DlcxyVuuM9sQLdgjVk2oy26F0EmpScGLq2MowX7fhd/QJQ3
        ydy5cY7YIBi87w93IKLEdfnbJtoOPLUW0ITrJReOgo1cq9SbsxYawBgfp/gh6A56
        03k2+ZQwVK0JKSHuLFkuQ3U=
        -----END PRIVATE KEY-----
        """

    /// RFC 7515 A.2 public key as PKCS #1, converted by `openssl rsa -RSAPublicKey_out`.
    static let rfcRSAPublicPKCS1 = """
        -----BEGIN RSA PUBLIC KEY-----
        MIIBCgKCAQEAofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd/wWJcyQoTbji9k0l8W2
        6mPddxHmfHQp+Vaw+4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL+yRT+SFd2lZS+pCgNMs
        D1W/YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb/7OMg0LOL+bSf63kpaSHSXndS5
        z5rexMdbBYUsLA9e+KXBdQOS+UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxv
        b3qCo5ZwKh9kG4LT6/I5IhlJH7aGhyxXFvUK+DWNmoudF8NAco9/h9iaGNj8q2et
        hFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQIDAQAB
        -----END RSA PUBLIC KEY-----
        """

    /// RFC 7515 A.2 public key as SPKI: `openssl pkey -pubout` of the PKCS #1 form.
    static let rfcRSASPKI = """
        -----BEGIN PUBLIC KEY-----
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAofgWCuLjybRlzo0tZWJj
        NiuSfb4p4fAkd/wWJcyQoTbji9k0l8W26mPddxHmfHQp+Vaw+4qPCJrcS2mJPMEz
        P1Pt0Bm4d4QlL+yRT+SFd2lZS+pCgNMsD1W/YpRPEwOWvG6b32690r2jZ47soMZo
        9wGzjb/7OMg0LOL+bSf63kpaSHSXndS5z5rexMdbBYUsLA9e+KXBdQOS+UTo7WTB
        EMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6/I5IhlJH7aGhyxX
        FvUK+DWNmoudF8NAco9/h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXp
        oQIDAQAB
        -----END PUBLIC KEY-----
        """

    /// `openssl ecparam -genkey` output: an EC PARAMETERS block, then the SEC 1 key.
    static let p256WithParameters = """
        -----BEGIN EC PARAMETERS-----
        BggqhkjOPQMBBw==
        -----END EC PARAMETERS-----
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIAb1mv44sUadj2ZalaJqTV2K6V7vmfhJ6iA4W5ZSynFYoAoGCCqGSM49
        AwEHoUQDQgAEbRQzmbtn5d4nE89jsVXCumybVivKJ1SK5czM7N2XULEyYe33lxOh
        9EjC2Qw5zup+gN9gvTxGdBN6Aps/7ChUDw==
        -----END EC PRIVATE KEY-----
        """

    /// A P-256 key whose curve is spelled out (`openssl ec -param_enc explicit`).
    static let p256ExplicitParameters = """
        -----BEGIN EC PRIVATE KEY-----
        MIIBaAIBAQQgBvWa/jixRp2PZlqVompNXYrpXu+Z+EnqIDhbllLKcViggfowgfcC
        AQEwLAYHKoZIzj0BAQIhAP////8AAAABAAAAAAAAAAAAAAAA////////////////
        MFsEIP////8AAAABAAAAAAAAAAAAAAAA///////////////8BCBaxjXYqjqT57Pr
        vVV2mIa8ZR0GsMxTsPY7zjw+J9JgSwMVAMSdNgiG5wSTamZ44ROdJreBn36QBEEE
        axfR8uEsQkf4vOblY6RA8ncDfYEt6zOg9KE5RdiYwpZP40Li/hp/m47n60p8D54W
        K84zV2sxXs7LtkBoN79R9QIhAP////8AAAAA//////////+85vqtpxeehPO5ysL8
        YyVRAgEBoUQDQgAEbRQzmbtn5d4nE89jsVXCumybVivKJ1SK5czM7N2XULEyYe33
        lxOh9EjC2Qw5zup+gN9gvTxGdBN6Aps/7ChUDw==
        -----END EC PRIVATE KEY-----
        """

    /// A P-384 key (SEC 1).
    static let p384 = """
        -----BEGIN EC PRIVATE KEY-----
        MIGkAgEBBDD64NF1TT1xXXutP2vpkhp9mg12iU+KxehKFeq9FbNydjCgUB+uXNOe
        f8BmCuRfNUagBwYFK4EEACKhZANiAAQ7Uo9tOjquj79k2IXv7jiQsGknuE8BlBp7
        pFIAUTEs7OSDXFr6gIAi4rEP2k62n+Mh7MRzDoWj8jJLS4axRgaVpdcekVLhJn1F
        R8R8wzEOrwaFpTgwSWOC1CxEmf0JpRc=
        -----END EC PRIVATE KEY-----
        """

    /// An RSA-1024 key (PKCS #1): too small for RS256.
    static let rsa1024 = """
        -----BEGIN RSA PRIVATE KEY-----
        MIICXwIBAAKBgQDRw7AuL5sqFJ1GWJSttppcfiLUvvOXA/nr5OT2d+u4ZkJc/NzQ
        PVaiqPf2xI/+Ul3hu2HDmm+1T7VsGBAhM26hxqHKc1/QFDlZyy1Mxxz1UqEl+Q37
        QHV7XYLA2fTTEoOrGZo/u+Jase4qq6dPFufpZPEdCjm60Cmn+x9fXNGy0QIDAQAB
        AoGBALGORSkzHtJF1MLg5CkOsiaslmsinyorMXedrrl51Muns3DmkTqrURQqlooI
        5CHQMquKYzyhEwGUUOsIi06vLGq3EXufOL5rm/di52pAsJGwGi4FLAnXADywGSac
        eQVO14KHcoeiULTHglY9qS7b6IP0c8jl1ij8o99zFXNlYLmJAkEA8Mx3VOVzjX9u
        edoJ5sfe7jH/O7DpooHJovDJS1Id9I5WWfQK6FVG6OPOioA2uHPmJzluFVtu9XJs
        ziv5A3VIRwJBAN8Brb/+Twfyh1bU4omsHtDYVwXAKWyoE/dwlvZi+nyosRhXH2HZ
        x22ilYAZiNqJwhN05GW47mkkZdk+bLH20CcCQQDaBab+HQo00W5rsXlJlSpJrMcV
        eqbvVmgEudLn+Z/Zr46Lv6Som52qe6ikSlZBR97ZIOyFNdYPMd1GBxZdhTE9AkEA
        v6rKsfQZ6uO5DJlF5zvG9IqsKKYjNF81Yfsj1Ln3PgMiyp++ujQaIpGVWpcXt3Sl
        GGHkF8WdK0L8Qn5Tn5VZCwJBAN4ChAB5DOwYtCpf594GWxrwWc5mlionZBiO8ito
        WTc3dmhJqpsN1nap+PkjaqQ91LzNd1G9JAhfM3ah4A8d7P8=
        -----END RSA PRIVATE KEY-----
        """

    /// The RSA-1024 public key (SPKI).
    static let rsa1024Public = """
        -----BEGIN PUBLIC KEY-----
        MIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDRw7AuL5sqFJ1GWJSttppcfiLU
        vvOXA/nr5OT2d+u4ZkJc/NzQPVaiqPf2xI/+Ul3hu2HDmm+1T7VsGBAhM26hxqHK
        c1/QFDlZyy1Mxxz1UqEl+Q37QHV7XYLA2fTTEoOrGZo/u+Jase4qq6dPFufpZPEd
        Cjm60Cmn+x9fXNGy0QIDAQAB
        -----END PUBLIC KEY-----
        """

    /// An Ed25519 key (PKCS #8).
    static let ed25519 = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEILe9wrOM+b+L0/Ya0cjiNai4MGuk8IPjfq5dFLLQ/wCu
        -----END PRIVATE KEY-----
        """

    /// A P-256 key in encrypted PKCS #8 (password "secret").
    static let encryptedP256 = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIHsMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAgyj+Kcq+/EhgICCAAw
        DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEEH9A9hhoGceA3qBeqIA1DNgEgZA/
        /jHnx+4tRhmagO1Qb7O9yYnfizixI1mxvHsXLmVMXJAaB+wLN87nu3JX4kObhea3
        0aM/hqF5UZZtYh0Hd1tHgsb/msDRf/gwJspwx1+/jMN5eZRjW/I1vKkFzfGRnKh5
        R7mHA9avIrnHfCAK82vtPBjTqNZlFub3kY0V2v1igQ4mkg9Hcjajm5ePv4h15B8=
        -----END ENCRYPTED PRIVATE KEY-----
        """

    /// An RSA key restricted to PSS (id-RSASSA-PSS, PKCS #8).
    static let rsaPSSRestricted = """
        -----BEGIN PRIVATE KEY-----
        MIIEuwIBADALBgkqhkiG9w0BAQoEggSnMIIEowIBAAKCAQEAtfDWqIICODBU4uBz
        lJ9no971AwRPZmNbpjvQkLnGVFZ1AnenCrspEnkId79aS7zTwB7m9YcCPrMTeYPF
        lfk+s9xK5gitRHFidAITazlc3bnp/q3LHiW2ApnoIY9U7MmfeMCaHT6vFK+eY6QL
        baK89ab98Tq6fvXfcR4QNLCLHl0hhxhfgDTNbxyscK76X/aoqONkqNTSw2GCWCjw
        kEA+eMd9Gbe75jubzSXMTp71CDzCZdUAga2w8miu+959eoTlHGpUl5VqMfrdu93Y
        qLphn7hhIq3twVFVVrE/g5O5OevUrlfF33fFHn31fKs2NPKS/osYVKd0f4jcUFHb
        Si1hYQIDAQABAoIBAARBu5lQXAzvKeKaWG9Ea4BXWb7VqFCU8of+ePAUk0yrLoGo
        Ra2SmMYTNDIuX/EgXIlE2n0pc3v+ue3rOgGQRfn0pYFMTVbUmvZr4K3ENyVY5t32
        jade6oCVE+v1Foo+Yrod3NKNAjunADsEk4qKdtv91DiDTz8OhvPL6EUopu3xkG/7
        uM0K4EQmz6mxonc9hUb9OlUQTsicaMXU1YwTXNwe/z9bQO2fSQKXrVXDk7PMT7o8
        JGpuSO2bCkKQ2la3OPAD2wQ1pPvCX1NdVEWuw1BLljjQuOiVEwOLsP4oRBrP/PEz
        3qmo7zh1nd9FXatJUVFw/iy3uMWk2nl0ji5HQSECgYEA3KSL6TqCsxyeHWKVKNC/
        Pz8xCoy9duS52KpX2ZPwQVKHaintdKfEvyVHPMO2MIGQaIy9D0Ubo/UdXXU1lTft
        NWHRXw0vzbAUGmk8PhuSR58JiU8b1+fvRxS40A2Kzhz2s3j1qvVZfxSO+XUlTpDs
        bh+vU5oo5Gj/2w9OCgxHXesCgYEA0xidsc3DeGzqjhSP/0VQCPAt5txt+qiyHfOr
        kpqoblIgyqQhfk4C43c516ZcR4Y5yWUi2lLTYdJWBq8Znm0Sn9QQqWXHXClpJFAS
        v+RblJg9j2lXB2JmzEMTufLuRd5jlagdHnGIFpzwJ0o11NUqxgYY082LcrLB+RPD
        xE12zuMCgYEA3Hzmf7wDrh9z9iN0sSPhab+pL0SzdONewKCBR6Fpnq1tOu8JJuEc
        YHNNO/DL2K8w8vlpWKAT3gVtQd6GHEaWGhlVE+pmkeJaRIZTODFvPXk1G2zdgyV4
        XIzdnrNZuV0CPxkqTpv9wlt2AN1K2bdDPU0WdLICGTbAL1WdA7d/fd8CgYBGeQZU
        UKQ8NOhNTJISH5qrkTtRwi85Kk5kb2/M/rLSObrWy9qepv6R38DAvLo76pSqJohv
        KI2HL8gmbRh5amJ4VzzEwMTAgNaoF89anqrwPa73jKxQO8qj0JTqVC61xpuqX7hw
        7GgJXJVUGJNGHXAtMeXh99HhFcpqE+4cP9w1DwKBgHKmrM/EmWfIONJ2m56EjAIG
        cUChBf9DREXnZl+ok+z9eDtfCkP2tmN/izyx9iFpmLJ9NYV00zi5P0JB9L1Lxicf
        mvHYJVmiIyUCkqAeuW7USzxTRqMbxVeIMNKo6qMSggiPQ8SO2g+wdfGbQo4OG6a7
        DlWc9RcS3arsax0atj5F
        -----END PRIVATE KEY-----
        """
}
